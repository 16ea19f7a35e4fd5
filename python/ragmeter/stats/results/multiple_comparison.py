""":class:`MultipleComparison`: a campaign (every system against a baseline, or every pair),
with the paper table as text, Markdown, LaTeX (booktabs), CSV and JSON
(:mod:`~ragmeter.stats.tables` renders them) and reports in every format of
:mod:`ragmeter.reports`."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np

from ..._nan_equal import canonical
from ..._notebook import NotebookDisplay
from ..._optional import import_optional
from ...exceptions import InvalidInputError
from ...manifest import Manifest
from ...per_query import PerQueryResults
from ...plots import plot_per_query
from ...reports import load_report, saved_head, write_report
from ..anova import TwoWayAnova, two_way_anova
from ..clustered import clusters_note, design_effects
from ..options import ComparisonOptions
from ..registry import TESTS
from ..tables import (
    PairRow,
    PairsTable,
    SystemsTable,
    display_metric_name,
    margin_verdict,
    render_csv,
    render_latex,
    render_markdown,
    render_text,
    system_labels,
)
from ._saved import (
    FORMAT_VERSION,
    MULTIPLE_COMPARISON_KIND,
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
from .comparison import Comparison, MetricComparison
from .pairs import PairTable

__all__ = ["MultipleComparison"]


def _metric_labels(metrics: Sequence[str], names: Mapping[str, str] | str | None) -> dict[str, str]:
    """The label of every metric: its name, its display name (``"auto"``) or the given one."""
    if names is None:
        return {m: m for m in metrics}
    if names == "auto":
        return {m: display_metric_name(m) for m in metrics}
    if not isinstance(names, Mapping) or any(not isinstance(v, str) for v in names.values()):
        raise InvalidInputError(
            f"metric_names: None, 'auto' or {{metric: label}} of strings, got {names!r}"
        )
    unknown = sorted(set(names) - set(metrics))
    if unknown:
        raise InvalidInputError(
            f"metric_names: {unknown} are not compared metrics (they are {list(metrics)})"
        )
    return {m: names.get(m, m) for m in metrics}


def _interval_kind(test: str, n_bootstrap: int) -> str:
    """How the intervals were made, for the captions."""
    spec = TESTS[test]
    if spec.interval == "bootstrap":
        return f"bootstrap percentiles of {n_bootstrap:,} resamples"
    return spec.interval_text


def _strict(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_strict(v) for v in value]
    return value


class MultipleComparison(NotebookDisplay):
    """Several systems compared on the same queries: every system against a baseline, or every
    pair (``baseline`` is None), over several metrics, with corrected p-values.

    :func:`~ragmeter.compare_many` builds it. ``result["a", "b"]`` is the :class:`Comparison`
    of ``a`` against ``b`` (in either order: the other order is mirrored), ``result["a"]`` that
    of ``a`` against the baseline; :attr:`comparisons` holds them all. The paper table comes as
    :meth:`to_table`, :meth:`to_markdown`, :meth:`to_latex`, :meth:`to_csv` and
    :meth:`to_json`. The parameters are also its attributes (``metrics`` as ``metric_names``),
    with ``pairs``: the compared ``(candidate, baseline)`` names, in order.

    Parameters
    ----------
    systems
        The systems' names, in order: the table's rows and labels.
    baseline
        The baseline's name, or None when every pair was compared.
    metrics
        The compared metrics.
    query_ids
        The paired queries.
    values
        Systems x metrics x queries, NaN where a value is undefined.
    results
        ``{(candidate, baseline): one MetricComparison per metric}``, or the same as a
        :class:`~ragmeter.stats.results.pairs.PairTable` (what :func:`~ragmeter.compare_many`
        gives: no Python object per pair); :attr:`table` holds it.
    test, method
        The test (a key of :data:`TESTS`) and how its p-values were computed.
    correction, family
        The p-value correction (None: none; ``"tukey"`` for Tukey's test) and what it adjusted
        over (``"all"`` or ``"metric"``).
    alpha
        The significance level of the marks.
    confidence_level
        The intervals' level (None: no interval).
    n_resamples, n_bootstrap, random_state
        Sign vectors or resamples of the test, bootstrap resamples of the intervals, the seed.
    excluded
        Per system, the queries left out by ``missing="skip"``.
    failed
        Per system and metric, the queries whose value is NaN because an evaluation failed.
    options
        The options it was computed with (:class:`ComparisonOptions`; None: derived from the
        settings above).
    evaluation
        How the values were evaluated, in words the captions repeat (``ragmeter compare``
        states its flags: ``"evaluated with -c (a judged query a run missed scores 0)"``);
        None: nothing to state. An attribute that may be set after the comparison.

    Attributes
    ----------
    comparability
        What the check of comparable values (:func:`ragmeter.check_comparable`) could not
        check when the systems were compared (a setting recorded for one system only, other
        ragmeter versions, a file without a checksum), one sentence each; :meth:`notes`
        repeats them. Set by :func:`~ragmeter.compare_many`; not saved (empty when read back).
    manifests
        ``{system: Manifest}``: what made each system's values (set by
        :func:`~ragmeter.compare_many`; not saved: empty when read back), given to
        :meth:`per_system`'s values.
    """

    #: What a saved campaign's ``kind`` field says (its schema: ``ragmeter.schemas``).
    KIND: ClassVar[str] = MULTIPLE_COMPARISON_KIND
    #: The format :meth:`write` writes.
    FORMAT_VERSION: ClassVar[int] = FORMAT_VERSION
    #: The report formats :meth:`read` reads (older ones are upgraded).
    READABLE_VERSIONS: ClassVar[tuple[int, ...]] = READABLE_VERSIONS

    def __init__(
        self,
        *,
        systems: Sequence[str],
        baseline: str | None,
        metrics: Sequence[str],
        query_ids: Sequence[Any],
        values: np.ndarray,
        results: Mapping[tuple[str, str], Sequence[MetricComparison]] | PairTable,
        test: str,
        method: str,
        correction: str | None,
        family: str,
        alpha: float,
        confidence_level: float | None,
        n_resamples: int,
        n_bootstrap: int,
        random_state: int | None,
        excluded: Mapping[str, Sequence[Any]] | None = None,
        failed: Mapping[str, Mapping[str, Sequence[Any]]] | None = None,
        options: ComparisonOptions | None = None,
        evaluation: str | None = None,
    ) -> None:
        """Build a campaign's result (see the class documentation)."""
        self.systems = tuple(systems)
        self.baseline = baseline
        self.metric_names = tuple(metrics)
        self.query_ids = tuple(query_ids)
        array = np.array(values, dtype=np.float64)
        array.setflags(write=False)
        self.values = array
        #: Every compared pair's statistics as arrays (:class:`PairTable`).
        self.table = (
            results
            if isinstance(results, PairTable)
            else PairTable.from_results(self.systems, self.metric_names, results)
        )
        self.test = test
        self.method = method
        self.correction = correction
        self.family = family
        self.alpha = alpha
        self.confidence_level = confidence_level
        self.n_resamples = n_resamples
        self.n_bootstrap = n_bootstrap
        self.random_state = random_state
        self.excluded = {k: tuple(v) for k, v in (excluded or {}).items()}
        self.failed = {
            system: {m: tuple(ids) for m, ids in by_metric.items()}
            for system, by_metric in (failed or {}).items()
        }
        self.options = (
            options if options is not None else _check_options({}, self._settings(), baseline)
        )
        self._anova: dict[str, TwoWayAnova | None] | None = None
        self.comparability: tuple[str, ...] = ()
        #: Each query's cluster, aligned with ``query_ids`` (None: no cluster was given or
        #: recorded); set by :func:`~ragmeter.compare_many`, not saved.
        self.clusters: tuple[Any, ...] | None = None
        self.manifests: dict[str, Manifest] = {}
        if evaluation is not None and not isinstance(evaluation, str):
            raise InvalidInputError(f"evaluation: a sentence or None, got {evaluation!r}")
        self.evaluation = evaluation

    # -- access --------------------------------------------------------------------------------

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        """The compared ``(candidate, baseline)`` names, in order."""
        return self.table.pairs

    def _index(self, system: str) -> int:
        try:
            return self.systems.index(system)
        except ValueError:
            raise KeyError(f"{system!r} is not one of the systems {list(self.systems)}") from None

    def __getitem__(self, key: str | tuple[str, str]) -> Comparison:
        """``result["a", "b"]``: ``a`` against ``b`` (mirrored when the pair was compared the
        other way round); ``result["a"]``: ``a`` against the baseline. ``KeyError`` for a
        system or pair that was not compared."""
        if isinstance(key, tuple):
            candidate, baseline = key
        elif self.baseline is None:
            raise KeyError(
                "every pair was compared (no baseline): ask for result[candidate, baseline]"
            )
        else:
            candidate, baseline = key, self.baseline
        self._index(candidate), self._index(baseline)
        if (row := self.table.row(candidate, baseline)) is not None:
            return self._comparison(candidate, baseline, self.table.items(row))
        if (row := self.table.row(baseline, candidate)) is not None:
            mirrored = tuple(m.mirrored() for m in self.table.items(row))
            return self._comparison(candidate, baseline, mirrored, mirror=True)
        raise KeyError(
            f"{candidate!r} and {baseline!r} were not compared (every system was compared "
            f"with the baseline {self.baseline!r})"
        )

    def _comparison(
        self,
        candidate: str,
        baseline: str,
        items: Sequence[MetricComparison],
        *,
        mirror: bool = False,
    ) -> Comparison:
        a, b = self._index(candidate), self._index(baseline)
        options = self.options
        if mirror and options.alternative != "two-sided":
            # The same one-sided p-value, seen from the other system: "candidate better"
            # becomes "candidate worse".
            flipped = "less" if options.alternative == "greater" else "greater"
            options = replace(options, alternative=flipped)
        differences = {
            metric: tuple((self.values[a, m] - self.values[b, m]).tolist())
            for m, metric in enumerate(self.metric_names)
        }
        return Comparison(
            candidate=candidate,
            baseline=baseline,
            metrics=tuple(items),
            query_ids=self.query_ids,
            differences=differences,
            method=self.method,
            n_resamples=self.n_resamples,
            random_state=self.random_state,
            confidence_level=self.confidence_level,
            n_bootstrap=self.n_bootstrap,
            test=self.test,
            alpha=self.alpha,
            correction=self.correction,
            family=self.family,
            excluded=self.excluded,
            n_tests=self._family_size(),
            options=options,
            clusters=self.clusters,
        )

    @property
    def anova(self) -> dict[str, TwoWayAnova | None]:
        """The two-way ANOVA without replication (queries x systems) of every metric, over
        the queries where every system has a value (None for a metric with fewer than 2 such
        queries): the system and query effects, the residual variance ``V_E``, F and p.

        Returns
        -------
        dict
            ``{metric: TwoWayAnova or None}``.
        """
        if self._anova is None:
            found: dict[str, TwoWayAnova | None] = {}
            for m, metric in enumerate(self.metric_names):
                matrix = self.values[:, m, :].T
                complete = int((~np.isnan(matrix).any(axis=1)).sum())
                found[metric] = two_way_anova(matrix) if complete >= 2 else None
            self._anova = found
        return self._anova

    def _family_size(self) -> int:
        """How many tests the correction adjusted over together."""
        per_metric = len(self.pairs)
        spec = TESTS[self.test]
        if spec.own_correction is not None:
            # The test's own family, per metric: every pair of systems, or the compared ones.
            m = len(self.systems)
            return m * (m - 1) // 2 if spec.own_family == "all-pairs" else per_metric
        return per_metric * len(self.metric_names) if self.family == "all" else per_metric

    @property
    def comparisons(self) -> dict[Any, Comparison]:
        """Every compared pair's :class:`Comparison`: keyed by the candidate's name when
        there is a baseline, by ``(candidate, baseline)`` for all pairs."""
        return {(pair[0] if self.baseline is not None else pair): self[pair] for pair in self.pairs}

    def metric_comparisons(self, candidate: str, baseline: str) -> tuple[MetricComparison, ...]:
        """The comparisons of every metric of one pair, without building the per-query
        differences.

        Parameters
        ----------
        candidate, baseline
            The pair (mirrored when it was compared the other way round).

        Returns
        -------
        tuple of MetricComparison
            One per metric.

        Raises
        ------
        KeyError
            The pair was not compared.
        """
        if (row := self.table.row(candidate, baseline)) is not None:
            return self.table.items(row)
        if (row := self.table.row(baseline, candidate)) is not None:
            return tuple(m.mirrored() for m in self.table.items(row))
        raise KeyError(f"{candidate!r} and {baseline!r} were not compared")

    def means(self) -> dict[str, dict[str, float]]:
        """Every system's mean of every metric over the paired queries where it is defined.

        Returns
        -------
        dict
            ``{system: {metric: mean}}`` (NaN without a defined value).
        """
        defined = ~np.isnan(self.values)
        with np.errstate(invalid="ignore", divide="ignore"):
            table = np.where(defined, self.values, 0.0).sum(axis=2) / defined.sum(axis=2)
        return {
            system: {m: float(table[s, i]) for i, m in enumerate(self.metric_names)}
            for s, system in enumerate(self.systems)
        }

    def per_system(self) -> dict[str, PerQueryResults]:
        """Every system's per-query values.

        Returns
        -------
        dict
            ``{system: PerQueryResults}`` of the paired queries, each with the manifest of the
            values compared (:attr:`manifests`; unrecorded for a comparison read back).
        """
        names = list(self.metric_names)
        return {
            system: PerQueryResults(
                {m: self.values[s, i] for i, m in enumerate(self.metric_names)},
                self.query_ids,
                name=system,
                failed=self.failed.get(system),
                manifest=None
                if system not in self.manifests
                else self.manifests[system].restricted(names),
            )
            for s, system in enumerate(self.systems)
        }

    def __eq__(self, other: object) -> bool:
        """Equal when the reports are equal (NaN equal to NaN)."""
        if not isinstance(other, MultipleComparison):
            return NotImplemented
        return bool(canonical(self.to_dict()) == canonical(other.to_dict()))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        design = "all pairs" if self.baseline is None else f"baseline={self.baseline!r}"
        return (
            f"MultipleComparison(systems={list(self.systems)}, {design}, test={self.test!r}, "
            f"correction={self.correction!r}, metrics={list(self.metric_names)}, "
            f"n_queries={len(self.query_ids)})"
        )

    def __str__(self) -> str:
        return self.to_table()

    # -- tables --------------------------------------------------------------------------------

    def describe_test(self) -> str:
        """The caption's sentence: the test, the correction and what it was applied over, alpha.

        Returns
        -------
        str
            The sentence.
        """
        return _describe(
            self.test,
            self.method,
            self.n_resamples,
            self.random_state,
            self.correction,
            self.family,
            self.alpha,
            n_tests=len(self.pairs) * len(self.metric_names),
            n_pairs=self._family_size()
            if TESTS[self.test].own_correction is not None
            else len(self.pairs),
            confidence_level=self.confidence_level,
            n_bootstrap=self.n_bootstrap,
            alternative=self.options.alternative,
        )

    def systems_table(
        self,
        digits: int = 4,
        *,
        metric_names: Mapping[str, str] | str | None = None,
        pairs: bool = True,
        caption: str | None = None,
    ) -> SystemsTable:
        """The data of the paper table and of the table of differences.

        A system's mean carries the labels of the systems it beats significantly (a higher mean
        over the queries the two share and a p-value, adjusted if corrected, at most ``alpha``);
        the best mean of each metric, as printed, is bold. The table of differences gives, for
        every pair and metric, the mean difference, its interval, the standardised effect and
        the p-values (a p-value never stands alone).

        Parameters
        ----------
        digits
            Decimals of the means.
        metric_names
            The metrics' labels: None (their names as evaluated), ``"auto"``
            (:func:`~ragmeter.stats.tables.display_metric_name`: ``ndcg_cut_10`` ->
            ``nDCG@10``) or ``{name: label}`` (names left out keep theirs).
        pairs
            Include the table of differences.
        caption
            A sentence put before the generated caption (what the table is about).

        Returns
        -------
        SystemsTable
            What the renderers of :mod:`ragmeter.stats.tables` print.
        """
        means = self.means()
        n_systems, n_metrics = len(self.systems), len(self.metric_names)
        beats: list[list[list[int]]] = [[[] for _ in range(n_metrics)] for _ in range(n_systems)]
        # From the arrays: no MetricComparison is made per pair.
        delta = self.table.columns["delta"]
        significant = self.table.significant(self.alpha) & ~np.isnan(delta)
        for found, m in np.argwhere(significant).tolist():
            a, b = self.table.index[found].tolist()
            if delta[found, m] > 0:
                beats[a][m].append(b)
            elif delta[found, m] < 0:
                beats[b][m].append(a)
        for row in beats:
            for cell in row:
                cell.sort()
        table_means = [[means[s][m] for m in self.metric_names] for s in self.systems]
        bold = [[False] * n_metrics for _ in range(n_systems)]
        for m in range(n_metrics):
            printed = [round(row[m], digits) for row in table_means]
            defined = [v for v in printed if not math.isnan(v)]
            if defined and len(self.systems) > 1:
                best = max(defined)
                for s in range(n_systems):
                    bold[s][m] = printed[s] == best
        labels = _metric_labels(self.metric_names, metric_names)
        undefined = bool(np.isnan(self.values).any())
        over = (
            f"Means over up to {len(self.query_ids)} queries (a system's undefined values are "
            "left out of its mean)"
            if undefined
            else f"Means over {len(self.query_ids)} queries"
        )
        if self.evaluation:
            over += f", {self.evaluation.rstrip('.')}"
        full_caption = (
            (caption.rstrip() + " " if caption else "")
            + f"{over}. A superscript lists the systems whose mean is significantly lower: "
            + self.describe_test()
        )
        return SystemsTable(
            systems=self.systems,
            metrics=[labels[m] for m in self.metric_names],
            means=table_means,
            beats=beats,
            bold=bold,
            caption=full_caption,
            notes=self.notes(),
            digits=digits,
            pairs=self._pairs_table(labels) if pairs else None,
        )

    def _pairs_table(self, labels: Mapping[str, str]) -> PairsTable:
        spec = TESTS[self.test]
        rows = [
            PairRow(
                candidate=candidate,
                baseline=baseline,
                metric=labels[item.metric],
                n_pairs=item.n_pairs,
                delta=item.delta,
                ci_low=item.ci_low,
                ci_high=item.ci_high,
                effect=item.effect_size,
                p_value=item.p_value,
                p_value_adjusted=item.p_value_adjusted,
            )
            for (candidate, baseline), items in self.table
            for item in items
        ]
        interval = (
            ""
            if self.confidence_level is None
            else f"its {self.confidence_level:.0%} confidence interval ("
            + _interval_kind(self.test, self.n_bootstrap)
            + "), "
        )
        margin = self.options.margin
        verdict = (
            f" vs ±{margin:g}: the interval lies beyond the smallest difference that matters "
            f"(beyond), inside it (within: practically equivalent) or across a bound "
            f"(unclear)."
            if margin > 0 and self.confidence_level is not None
            else ""
        )
        caption = (
            f"Differences (candidate - baseline): the mean difference over the n paired "
            f"queries, {interval}{spec.effect_size_name} ({spec.effect_size_text}) and the "
            f"p-values ({spec.title_for(self.options.alternative)}).{verdict}"
        )
        return PairsTable(
            rows=rows,
            confidence_level=self.confidence_level,
            effect_name=spec.effect_size_name,
            effect_text=spec.effect_size_text,
            caption=caption,
            margin=margin,
        )

    @property
    def n_clusters(self) -> int | None:
        """How many clusters the queries are in (None: no cluster was given or recorded)."""
        return None if self.clusters is None else len(set(self.clusters))

    def design_effects(self) -> dict[tuple[str, str], dict[str, float]]:
        """Kish's design effect of each compared pair's mean difference, metric by metric
        (:func:`~ragmeter.stats.design_effects`): how much wider a cluster-robust interval is
        than one that treats the queries as independent, squared. Empty without clusters.

        Returns
        -------
        dict
            ``{(candidate, baseline): {metric: design effect}}`` (NaN: fewer than 2 clusters
            or no variance).
        """
        if self.clusters is None:
            return {}
        found = {}
        for a_name, b_name in self.pairs:
            a, b = self._index(a_name), self._index(b_name)
            differences = {
                metric: self.values[a, m] - self.values[b, m]
                for m, metric in enumerate(self.metric_names)
            }
            found[a_name, b_name] = design_effects(differences, self.clusters)
        return found

    def notes(self) -> list[str]:
        """What a reader of the table must know besides the caption.

        Returns
        -------
        list of str
            Queries left out, failed values, pairs whose p-value is undefined, the baseline,
            what could not be checked of the values' comparability.
        """
        notes = [f"Not checked: {note.rstrip('.')}." for note in self.comparability]
        if self.clusters is not None and self.n_clusters is not None:
            effects: dict[str, list[float]] = {m: [] for m in self.metric_names}
            for by_pair in self.design_effects().values():
                for name, value in by_pair.items():
                    effects[name].append(value)
            notes.append(
                clusters_note(
                    len(self.query_ids),
                    self.n_clusters,
                    self.test,
                    TESTS[self.test].requires_clusters,
                    effects,
                )
            )
        if self.baseline is not None:
            notes.append(
                f"Every system was tested against the baseline {self.baseline} only "
                f"(label {system_labels(len(self.systems))[self._index(self.baseline)]})."
            )
        if TESTS[self.test].reports_anova:
            for metric, result in self.anova.items():
                if result is not None:
                    notes.append(f"{metric}: {result.describe()}.")
        notes += _excluded_notes(self.excluded)
        for system, by_metric in self.failed.items():
            for metric, ids in by_metric.items():
                if ids:
                    notes.append(
                        f"{len(ids)} values of {metric} of {system} failed (an evaluation "
                        "error) and were left out of its pairs."
                    )
        undefined_p = np.isnan(self.table.columns["p_value"])
        undefined = np.argwhere(undefined_p).tolist()
        if undefined:
            row, m = undefined[0]
            (a, b), metric = self.pairs[row], self.metric_names[m]
            spec = TESTS[self.test]
            few = int((undefined_p & (self.table.columns["n_pairs"] < spec.min_pairs)).sum())
            why = (
                f"not enough queries for the test: it needs at least {spec.min_pairs}"
                if few == len(undefined)
                else f"no paired query, or fewer than the test's {spec.min_pairs}"
            )
            notes.append(
                f"{len(undefined)} p-values are undefined ({why}), e.g. {a} vs {b} on "
                f"{metric}; they are never significant."
            )
        return notes

    def to_table(
        self,
        digits: int = 4,
        *,
        metric_names: Mapping[str, str] | str | None = None,
        pairs: bool = True,
        caption: str | None = None,
    ) -> str:
        """The paper table as aligned text (a star marks the best mean of each metric), then
        the table of differences of every pair.

        Parameters
        ----------
        digits
            Decimals of the means and differences.
        metric_names
            The metrics' labels (None: as evaluated; see :meth:`systems_table`).
        pairs
            Include the table of differences (difference, interval, effect, p-values).
        caption
            A sentence put before the generated caption.

        Returns
        -------
        str
            The tables, their captions and notes.
        """
        return render_text(
            self.systems_table(digits, metric_names=metric_names, pairs=pairs, caption=caption)
        )

    def to_markdown(
        self,
        digits: int = 4,
        *,
        metric_names: Mapping[str, str] | str | None = "auto",
        pairs: bool = True,
        caption: str | None = None,
    ) -> str:
        """The paper table as a GitHub-flavoured Markdown table, with its caption below, then
        the table of differences.

        Parameters
        ----------
        digits
            Decimals of the means and differences.
        metric_names
            The metrics' labels (default ``"auto"``: ``ndcg_cut_10`` -> ``nDCG@10``; see
            :meth:`systems_table`).
        pairs
            Include the table of differences.
        caption
            A sentence put before the generated caption.

        Returns
        -------
        str
            The Markdown text.
        """
        return render_markdown(
            self.systems_table(digits, metric_names=metric_names, pairs=pairs, caption=caption)
        )

    def to_latex(
        self,
        digits: int = 4,
        *,
        label: str = "tab:comparison",
        standalone: bool = False,
        metric_names: Mapping[str, str] | str | None = "auto",
        pairs: bool = True,
        caption: str | None = None,
    ) -> str:
        """The paper table as a LaTeX ``table`` with a ``booktabs`` tabular, and the table of
        differences as a ``longtable`` (it breaks across pages: no row is lost at 12 systems).

        The best mean of each metric is bold, each mean carries the superscript labels of the
        systems it beats; each caption is short (its first sentence) and the note under the
        table gives the test, the correction and alpha (see
        :func:`~ragmeter.stats.tables.render_latex`). It needs
        ``\\usepackage{booktabs,longtable}``.

        Parameters
        ----------
        digits
            Decimals of the means.
        label
            The table's ``\\label`` (the table of differences: ``label + "-pairs"``).
        standalone
            Return a whole compilable document.
        metric_names
            The metrics' labels (default ``"auto"``: ``ndcg_cut_10`` -> ``nDCG@10``; see
            :meth:`systems_table`).
        pairs
            Include the table of differences (a ``longtable``).
        caption
            A sentence put before the generated caption.

        Returns
        -------
        str
            The LaTeX source.
        """
        return render_latex(
            self.systems_table(digits, metric_names=metric_names, pairs=pairs, caption=caption),
            label=label,
            standalone=standalone,
        )

    def pair_rows(self) -> list[dict[str, Any]]:
        """One row per compared pair and metric.

        Returns
        -------
        list of dict
            Both means, the difference and its interval, the effect size, W/T/L, the test's
            statistic and p-values, whether it is significant, and the settings.
        """
        rows = []
        for (candidate, baseline), items in self.table:
            for item in items:
                rows.append(
                    {
                        "candidate": candidate,
                        "baseline": baseline,
                        **item.to_dict(),
                        "significant": item.significant(self.alpha),
                        "test": self.test,
                        "method": self.method,
                        "n_resamples": self.n_resamples,
                        "random_state": self.random_state,
                        "correction": self.correction,
                        "family": self.family,
                        "n_tests": self._family_size(),
                        "alpha": self.alpha,
                        "confidence_level": self.confidence_level,
                        "n_bootstrap": self.n_bootstrap,
                        "margin": self.options.margin,
                        "margin_verdict": margin_verdict(
                            item.ci_low, item.ci_high, self.options.margin
                        ),
                    }
                )
        return rows

    def to_csv(self) -> str:
        """The rows of :meth:`pair_rows` as CSV.

        Returns
        -------
        str
            RFC 4180 CSV with a header row (empty cells where a value is undefined).
        """
        return render_csv(self.pair_rows())

    def to_pandas(self) -> Any:
        """The rows of :meth:`pair_rows` as a pandas DataFrame (the ``pandas`` extra).

        Returns
        -------
        pandas.DataFrame
            One row per pair and metric.

        Raises
        ------
        MissingDependencyError
            pandas is not installed.
        """
        pd = import_optional("pandas", extra="pandas", purpose="MultipleComparison.to_pandas()")
        return pd.DataFrame(self.pair_rows())

    def to_json(self, *, indent: int | None = 2) -> str:
        """The full report (:meth:`to_dict`) as strict JSON.

        Parameters
        ----------
        indent
            Indentation (None: one line).

        Returns
        -------
        str
            The JSON text (an undefined value is null).
        """
        return json.dumps(_strict(self.to_dict()), indent=indent, ensure_ascii=False)

    # -- reports -------------------------------------------------------------------------------

    def _settings(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "method": self.method,
            "n_resamples": self.n_resamples,
            "random_state": self.random_state,
            "confidence_level": self.confidence_level,
            "n_bootstrap": self.n_bootstrap,
            "alpha": self.alpha,
            "correction": self.correction,
            "family": self.family,
        }

    def to_dict(self) -> dict[str, Any]:
        """The full report: systems, settings, every system's per-query values and every pair's
        comparison.

        Returns
        -------
        dict
            JSON-ready (NaN stays NaN; report writers turn it into null).
        """
        return {
            **saved_head(self),
            "systems": list(self.systems),
            "baseline": self.baseline,
            "metrics": list(self.metric_names),
            **self._settings(),
            "n_tests": self._family_size(),
            "options": self.options.to_dict(),
            "evaluation": self.evaluation,
            "anova": {
                metric: None if result is None else result.to_dict()
                for metric, result in self.anova.items()
            },
            "query_ids": list(self.query_ids),
            "excluded": {k: list(v) for k, v in self.excluded.items()},
            "failed": {
                s: {m: list(ids) for m, ids in by_metric.items()}
                for s, by_metric in self.failed.items()
            },
            "values": {
                system: {m: self.values[s, i].tolist() for i, m in enumerate(self.metric_names)}
                for s, system in enumerate(self.systems)
            },
            "comparisons": [
                {
                    "candidate": candidate,
                    "baseline": baseline,
                    "metrics": [item.to_dict() for item in items],
                }
                for (candidate, baseline), items in self.table
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MultipleComparison:
        """Rebuild a comparison from :meth:`to_dict` output, checking every field.

        Parameters
        ----------
        data
            What :meth:`to_dict` returned (or a report file held).

        Returns
        -------
        MultipleComparison
            The rebuilt comparison.

        Raises
        ------
        InvalidInputError
            Not such a report, another format version, a field of the wrong type or out of range,
            values not aligned with the queries, pairs of unknown systems.
        """
        _check_mapping(data, "a multiple comparison report")
        if data.get("kind") != MULTIPLE_COMPARISON_KIND:
            raise InvalidInputError(
                f"not a ragmeter multiple comparison report (kind {data.get('kind')!r})"
            )
        data = _check_version(data)
        systems = [_check_name(s, "systems") for s in data["systems"]]
        if len(set(systems)) != len(systems) or len(systems) < 2:
            raise InvalidInputError("systems: expected at least 2 distinct system names")
        baseline = data.get("baseline")
        if baseline is not None and baseline not in systems:
            raise InvalidInputError(f"baseline: {baseline!r} is not one of the systems")
        metrics = [_check_name(m, "metrics") for m in data["metrics"]]
        query_ids = _check_query_ids(data["query_ids"])
        raw = data["values"]
        if not isinstance(raw, Mapping) or list(raw) != systems:
            raise InvalidInputError("values: expected {system: {metric: values}} for every system")
        values = np.full((len(systems), len(metrics), len(query_ids)), math.nan)
        for s, system in enumerate(systems):
            by_metric = raw[system]
            if not isinstance(by_metric, Mapping) or list(by_metric) != metrics:
                raise InvalidInputError(f"values: {system!r} must hold every metric, in order")
            for m, metric in enumerate(metrics):
                column = by_metric[metric]
                if not isinstance(column, list) or len(column) != len(query_ids):
                    raise InvalidInputError(
                        f"values: {system!r} {metric!r} must hold one value per query"
                    )
                values[s, m] = [_number(v, f"values: {system} {metric}") for v in column]
        results: dict[tuple[str, str], tuple[MetricComparison, ...]] = {}
        for entry in data["comparisons"]:
            pair = (entry["candidate"], entry["baseline"])
            if pair[0] not in systems or pair[1] not in systems or pair[0] == pair[1]:
                raise InvalidInputError(f"comparisons: {pair} is not a pair of the systems")
            items = tuple(MetricComparison.from_dict(m) for m in entry["metrics"])
            if [i.metric for i in items] != metrics:
                raise InvalidInputError(f"comparisons: {pair} must compare every metric")
            results[pair] = items
        failed = data.get("failed") or {}
        if not isinstance(failed, Mapping):
            raise InvalidInputError("failed: expected {system: {metric: [query ids]}}")
        settings = _check_settings(data)
        return cls(
            systems=systems,
            baseline=baseline,
            metrics=metrics,
            query_ids=query_ids,
            values=values,
            results=results,
            excluded=_check_excluded(data.get("excluded") or {}),
            failed={
                _check_name(s, "failed"): {
                    _check_name(m, "failed"): _check_query_ids(ids) for m, ids in v.items()
                }
                for s, v in failed.items()
            },
            options=_check_options(data, settings, baseline),
            evaluation=data.get("evaluation"),
            **settings,
        )

    def to_rows(self) -> list[dict[str, Any]]:
        """Rows for JSONL, each with the settings.

        Returns
        -------
        list of dict
            One ``"row": "system"`` row per system (its per-query values) and one
            ``"row": "pair"`` row per compared pair (``pair_candidate``, ``pair_baseline``) and
            metric.
        """
        full = self.to_dict()
        head = {k: v for k, v in full.items() if k not in ("values", "comparisons")}
        rows: list[dict[str, Any]] = [
            {**head, "row": "system", "system": system, "values": full["values"][system]}
            for system in self.systems
        ]
        for entry in full["comparisons"]:
            for item in entry["metrics"]:
                rows.append(
                    {
                        **head,
                        "row": "pair",
                        "pair_candidate": entry["candidate"],
                        "pair_baseline": entry["baseline"],
                        **item,
                    }
                )
        return rows

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> MultipleComparison:
        """Rebuild a comparison from :meth:`to_rows` output.

        Parameters
        ----------
        rows
            What :meth:`to_rows` returned.

        Returns
        -------
        MultipleComparison
            The rebuilt comparison (checked as :meth:`from_dict` checks it).
        """
        if not rows:
            raise InvalidInputError("rows: a comparison report needs at least one row")
        metric_fields = set(MetricComparison.__dataclass_fields__)
        row_fields = {"row", "system", "values", "pair_candidate", "pair_baseline"}
        head = {k: v for k, v in rows[0].items() if k not in row_fields | metric_fields}
        values = {row["system"]: row["values"] for row in rows if row.get("row") == "system"}
        comparisons: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for row in rows:
            if row.get("row") == "pair":
                pair = (row["pair_candidate"], row["pair_baseline"])
                comparisons.setdefault(pair, []).append({k: row.get(k) for k in metric_fields})
            elif row.get("row") != "system":
                raise InvalidInputError(f"rows: unknown row kind {row.get('row')!r}")
        return cls.from_dict(
            {
                **head,
                "values": values,
                "comparisons": [
                    {"candidate": a, "baseline": b, "metrics": items}
                    for (a, b), items in comparisons.items()
                ],
            }
        )

    def write(self, path: str | os.PathLike[str], *, format: str | None = None) -> Any:
        """Write the comparison to a report file, atomically.

        Parameters
        ----------
        path
            The file; its suffix gives the format (``.json``, ``.jsonl``, ``.yaml``, ``.toml``).
        format
            The format, when the suffix does not say it.

        Returns
        -------
        pathlib.Path
            The path written.
        """
        return write_report(self, path, format=format)

    @classmethod
    def read(cls, path: str | os.PathLike[str], *, format: str | None = None) -> MultipleComparison:
        """Read a comparison written by :meth:`write` (validated on reading).

        Parameters
        ----------
        path
            The report file.
        format
            Its format, when the suffix does not say it.

        Returns
        -------
        MultipleComparison
            The comparison (equal to the one written).
        """
        return load_report(cls, path, format=format)

    def plot(
        self,
        metric: str | None = None,
        path: str | os.PathLike[str] | None = None,
        **options: Any,
    ) -> Any:
        """Every system's per-query values of one metric (:func:`ragmeter.plots.plot_per_query`;
        the ``plot`` extra), queries sorted by the baseline's value (or the mean over systems).

        Parameters
        ----------
        metric
            The metric (default: the first).
        path
            Where to save the figure.
        options
            Passed to :func:`~ragmeter.plots.plot_per_query` (``ax``).

        Returns
        -------
        matplotlib.figure.Figure
            The figure.
        """
        return plot_per_query(
            self.per_system(),
            metric or self.metric_names[0],
            sort_by=self.baseline,
            path=path,
            **options,
        )
