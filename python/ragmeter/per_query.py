"""One system's per-item values: the values type every producer builds and every consumer reads.

:class:`PerQueryResults` holds ``{metric: {item_id: value}}`` (an item is a query, or a judged
sample) as one numpy array (metrics x items, NaN where a value is undefined), with:

* ``repeats``: for items judged several times, every repeat (NaN: a repeat without a usable
  value); the item's value is the mean of its usable repeats, and the counts (asked, usable)
  say how noisy the judge was (:meth:`~PerQueryResults.repeat_counts`);
* ``clusters``: the cluster of each item (several questions about one document, several turns
  of one conversation), for cluster-robust errors;
* ``failed``: the items where an evaluation failed (a judge's error: a failure is never a
  number);
* ``manifest``: what made the values (:class:`~ragmeter.manifest.Manifest`: the producer, the
  measures' definitions, the settings that change the numbers, the judge); two sets of values
  are compared only when :func:`~ragmeter.manifest.check_comparable` says they mean the same
  thing.

Every producer builds one: :meth:`MetricResults.per_query_results
<ragmeter.MetricResults.per_query_results>` (``ranking_metrics(average=None)``,
``evaluate_trec(per_query=True)``, ``ragmeter.io.evaluate(per_query=True)``),
:meth:`RetrievalEvaluation.per_query_results
<ragmeter.RetrievalEvaluation.per_query_results>`, :meth:`JudgeResults.per_query_results
<ragmeter.judges.JudgeResults.per_query_results>` and the tables and saved files
:func:`ragmeter.io.read_per_query` reads. :func:`per_query_results` turns any of them (anything
with a ``per_query_results()`` method, or a mapping) into one.

It is a saved result (kind ``"ragmeter.per_query"``): :meth:`~PerQueryResults.write` and
:meth:`~PerQueryResults.read` (JSON, JSONL, YAML, TOML) keep the values, repeats, clusters,
failures and manifest; its exports (:meth:`~PerQueryResults.to_pandas`,
:meth:`~PerQueryResults.to_polars`, :meth:`~PerQueryResults.to_arrow`, the ``pandas``,
``polars`` and ``arrow`` extras) are the per-item tables :func:`ragmeter.io.read_per_query`
reads back.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from ._notebook import NotebookDisplay
from ._per_query_forms import (
    PER_QUERY_KIND,
    PerQueryForms,
    SavedHead,
    cells,
    check_ids,
    item_id,
    mean_of_usable,
    repeat_numbers,
    repeats_key,
    same_value,
    shown,
)
from .exceptions import InputTypeError, InvalidInputError
from .manifest import (
    JUDGE_SETTINGS,
    RANKING_SETTINGS,
    VALUE_SETTINGS,
    Manifest,
    check_comparable,
    judge_identity_of,
    measure_definition,
)
from .reports import load_report, write_report
from .summaries import MeanScore

__all__ = [
    "JUDGE_SETTINGS",
    "PER_QUERY_KIND",
    "RANKING_SETTINGS",
    "VALUE_SETTINGS",
    "Manifest",
    "PerQueryResults",
    "SavedPerQueryResults",
    "check_comparable",
    "judge_identity_of",
    "measure_definition",
    "per_query_results",
]

QueryId = str | int


class PerQueryResults(PerQueryForms, NotebookDisplay):
    """Per-item values of one system: ``{metric: {item_id: value}}``, with their repeats,
    clusters, failures and the manifest of what made them.

    Parameters
    ----------
    values
        ``{metric: values}``, each aligned with ``query_ids`` (a sequence or array), or
        ``{metric: {item_id: value}}`` (then ``query_ids`` may be omitted: the ids of the
        first metric, in order). A value is a number (NaN or None: undefined) or a list of the
        item's repeats (numbers, NaN or None for a repeat without a usable value): its value is
        then the mean of its usable repeats.
    query_ids
        The items (str or int ids, distinct). ``"1"`` and ``1`` are different items: they are
        never paired with each other.
    name
        The system's name, used by comparisons, tables and plots.
    manifest
        What made the values (a :class:`~ragmeter.manifest.Manifest` or its saved dict);
        default: nothing recorded (``Manifest.unrecorded("mapping", ...)``).
    repeats
        ``{metric: {item_id: [repeat, ...]}}``, the repeats of items whose value in
        ``values`` is a number: it must be the mean of the usable repeats.
    clusters
        ``{item_id: cluster_id}`` for every item (str or int cluster ids), or None.
    failed
        ``{metric: item ids}`` where the evaluation failed at least once (a judge's error);
        their value is the mean of what did not fail (NaN when nothing did).
    missing_from_run, unjudged
        Judged queries the run did not rank and ranked queries without judgments, as
        :class:`~ragmeter.MetricResults` lists them.
    parameters
        Deprecated: the settings, now :attr:`Manifest.settings
        <ragmeter.manifest.Manifest.settings>` (``manifest=Manifest(settings=...)``).

    Raises
    ------
    InvalidInputError
        No metric or no item, repeated ids, values not aligned with the ids, a value that is
        not a number, an infinite value, repeats whose mean is not the value given, clusters
        of other items, a manifest's definition of a metric that is not here.

    Examples
    --------
    >>> run = PerQueryResults({"map": [0.5, 0.25], "ndcg@10": [1.0, float("nan")]},
    ...                       query_ids=["q1", "q2"], name="bm25")
    >>> run["map"]
    {'q1': 0.5, 'q2': 0.25}
    >>> run.means()["ndcg@10"].describe()
    'ndcg@10 = 1.0000 over 1 queries (1 undefined)'
    >>> judged = PerQueryResults({"faithfulness": {"s1": [1.0, 0.0, 1.0], "s2": 1.0}})
    >>> judged["faithfulness"]["s1"], judged.repeat_counts("faithfulness")
    (0.6666666666666666, {'s1': (3, 3)})
    """

    def __init__(
        self,
        values: Mapping[str, Any],
        query_ids: Sequence[QueryId] | None = None,
        *,
        name: str | None = None,
        manifest: Manifest | Mapping[str, Any] | None = None,
        repeats: Mapping[str, Mapping[QueryId, Sequence[Any]]] | None = None,
        clusters: Mapping[QueryId, Any] | None = None,
        failed: Mapping[str, Sequence[QueryId]] | None = None,
        missing_from_run: Sequence[QueryId] = (),
        unjudged: Sequence[QueryId] = (),
        parameters: Mapping[str, Any] | None = None,
    ) -> None:
        """See the class documentation."""
        if not isinstance(values, Mapping) or not values:
            raise InvalidInputError(
                "values: expected {metric: per-query values} with at least one metric"
            )
        metrics = list(values)
        for metric in metrics:
            if not isinstance(metric, str) or not metric:
                raise InvalidInputError(f"values: metric names must be strings, got {metric!r}")
        first = values[metrics[0]]
        if query_ids is None:
            if not isinstance(first, Mapping):
                raise InvalidInputError(
                    "query_ids: give the query ids when the values are sequences"
                )
            query_ids = list(first)
        ids = [item_id(q, "query_ids") if isinstance(q, np.integer) else q for q in query_ids]
        check_ids(ids)
        rows = []
        found_repeats: dict[str, dict[QueryId, tuple[float, ...]]] = {}
        for metric in metrics:
            column = values[metric]
            if isinstance(column, Mapping):
                if set(column) != set(ids) or len(column) != len(ids):
                    extra = [q for q in column if q not in set(ids)]
                    absent = [q for q in ids if q not in column]
                    raise InvalidInputError(
                        f"values: {metric!r} has values for other queries than "
                        f"{metrics[0]!r}: {len(absent)} missing (e.g. {shown(absent)}), "
                        f"{len(extra)} extra (e.g. {shown(extra)})"
                    )
                column = [column[q] for q in ids]
            numbers, column_repeats = cells(metric, column, ids)
            rows.append(numbers)
            if column_repeats:
                found_repeats[metric] = column_repeats
        matrix = np.array(rows, dtype=np.float64).reshape(len(metrics), len(ids))
        self._metrics = tuple(metrics)
        self._query_ids = tuple(ids)
        self._position = {q: i for i, q in enumerate(ids)}
        for metric, given in (repeats or {}).items():
            if metric not in self._metrics:
                raise InvalidInputError(f"repeats: {metric!r} is not among the metrics")
            row = self._metrics.index(metric)
            for item, sequence in given.items():
                if item not in self._position:
                    raise InvalidInputError(f"repeats: {item!r} of {metric!r} is not an item")
                if item in found_repeats.get(metric, {}):
                    raise InvalidInputError(
                        f"repeats: {item!r} of {metric!r} has its repeats in values already"
                    )
                given_repeats = repeat_numbers(metric, item, sequence)
                value = float(matrix[row, self._position[item]])
                mean = mean_of_usable(given_repeats)
                if not same_value(value, mean):
                    raise InvalidInputError(
                        f"values: {item!r} of {metric!r} is {value!r} but the mean of its usable "
                        f"repeats {list(given_repeats)} is {mean!r}; an item's value is the mean "
                        "of its repeats"
                    )
                found_repeats.setdefault(metric, {})[item] = given_repeats
        matrix.setflags(write=False)
        self._matrix = matrix
        self._repeats = MappingProxyType(
            {
                m: MappingProxyType(dict(sorted(r.items(), key=lambda kv: self._position[kv[0]])))
                for m, r in found_repeats.items()
            }
        )
        self._clusters = None if clusters is None else self._cluster_column(clusters)
        self.name = name
        self.failed: dict[str, tuple[QueryId, ...]] = self._checked_failed(failed or {})
        self.missing_from_run = tuple(missing_from_run)
        self.unjudged = tuple(unjudged)
        self.manifest = self._checked_manifest(manifest, parameters)

    def _cluster_column(self, clusters: Mapping[QueryId, Any]) -> tuple[QueryId, ...]:
        if not isinstance(clusters, Mapping):
            raise InputTypeError(
                f"clusters: expected {{item_id: cluster_id}}, got {type(clusters).__name__}"
            )
        extra = [q for q in clusters if q not in self._position]
        absent = [q for q in self._query_ids if q not in clusters]
        if extra or absent:
            raise InvalidInputError(
                f"clusters: give the cluster of every item and of no other: {len(absent)} "
                f"items without one (e.g. {shown(absent)}), {len(extra)} unknown items (e.g. "
                f"{shown(extra)})"
            )
        return tuple(item_id(clusters[q], f"clusters[{q!r}]") for q in self._query_ids)

    def _checked_failed(self, failed: Mapping[str, Sequence[QueryId]]) -> dict[str, Any]:
        checked = {}
        for metric, items in failed.items():
            if metric not in self._metrics:
                raise InvalidInputError(f"failed: {metric!r} is not among the metrics")
            unknown = [q for q in items if q not in self._position]
            if unknown:
                raise InvalidInputError(f"failed: {shown(unknown)} of {metric!r} are not items")
            if len(items):
                checked[metric] = tuple(dict.fromkeys(items))
        return checked

    def _checked_manifest(
        self, manifest: Manifest | Mapping[str, Any] | None, parameters: Any
    ) -> Manifest:
        if manifest is None:
            made = Manifest.unrecorded("mapping", self._metrics)
        elif isinstance(manifest, Manifest):
            made = manifest
        elif isinstance(manifest, Mapping):
            made = Manifest.from_dict(manifest)
        else:
            raise InputTypeError(
                f"manifest: expected a Manifest or its dict, got {type(manifest).__name__}"
            )
        if parameters is not None:
            warnings.warn(
                "PerQueryResults(parameters=...) is deprecated: pass "
                "manifest=Manifest(settings=...) (ragmeter.manifest.Manifest)",
                DeprecationWarning,
                stacklevel=3,
            )
            settings = {**made.settings, **dict(parameters)}
            unknown = [u for u in made.unknown if u not in settings and u != "settings"]
            made = made.replace(settings=settings, unknown=tuple(unknown))
        extra = [m for m in made.measures if m not in self._metrics]
        if extra:
            raise InvalidInputError(
                f"manifest: defines {shown(extra)}, which are not among the metrics "
                f"{list(self._metrics)}"
            )
        return made

    # -- views ---------------------------------------------------------------------------------

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The metrics, in order."""
        return self._metrics

    @property
    def query_ids(self) -> tuple[QueryId, ...]:
        """The items (queries, judged samples), in order."""
        return self._query_ids

    @property
    def n_queries(self) -> int:
        """How many items there are."""
        return len(self._query_ids)

    @property
    def repeats(self) -> Mapping[str, Mapping[QueryId, tuple[float, ...]]]:
        """``{metric: {item_id: repeats}}`` of the items judged more than once (read-only; NaN:
        a repeat without a usable value)."""
        return self._repeats

    @property
    def clusters(self) -> dict[QueryId, QueryId] | None:
        """``{item_id: cluster_id}``, or None when no cluster was given."""
        if self._clusters is None:
            return None
        return dict(zip(self._query_ids, self._clusters, strict=True))

    @property
    def parameters(self) -> dict[str, Any]:
        """Deprecated: the settings the values were computed with (``manifest.settings``)."""
        warnings.warn(
            "PerQueryResults.parameters is deprecated: read manifest.settings",
            DeprecationWarning,
            stacklevel=2,
        )
        return dict(self.manifest.settings)

    def repeat_counts(self, metric: str) -> dict[QueryId, tuple[int, int]]:
        """How many repeats of each repeated item were asked for and how many gave a usable
        value.

        Parameters
        ----------
        metric
            The metric.

        Returns
        -------
        dict
            ``{item_id: (asked, usable)}`` of the items with repeats.

        Raises
        ------
        KeyError
            An unknown metric.
        """
        self._row(metric)
        return {
            item: (len(values), sum(1 for v in values if not math.isnan(v)))
            for item, values in self._repeats.get(metric, {}).items()
        }

    def array(self, metric: str | None = None) -> np.ndarray:
        """The values of one metric, or of every metric.

        Parameters
        ----------
        metric
            The metric; None: every metric.

        Returns
        -------
        numpy.ndarray
            Read-only: 1-D aligned with :attr:`query_ids`, or metrics x queries.

        Raises
        ------
        KeyError
            An unknown metric (the message names the metrics there are).
        """
        if metric is None:
            return self._matrix
        result: np.ndarray = self._matrix[self._row(metric)]
        return result

    def _row(self, metric: str) -> int:
        try:
            return self._metrics.index(metric)
        except ValueError:
            raise KeyError(
                f"{metric!r} is not among the metrics of {self.name or 'these results'}: "
                f"{list(self._metrics)}"
            ) from None

    def __getitem__(self, metric: str) -> dict[QueryId, float]:
        """``{query_id: value}`` of one metric (NaN where undefined)."""
        return dict(zip(self._query_ids, self.array(metric).tolist(), strict=True))

    def __contains__(self, metric: object) -> bool:
        return metric in self._metrics

    def __iter__(self) -> Iterator[str]:
        return iter(self._metrics)

    def __len__(self) -> int:
        return len(self._metrics)

    def __eq__(self, other: object) -> bool:
        """Equal names, metrics, ids, values, repeats (NaN equal to NaN), clusters, failures,
        queries missing or unjudged, and manifests."""
        if not isinstance(other, PerQueryResults):
            return NotImplemented
        return (
            self.name == other.name
            and self._metrics == other._metrics
            and self._query_ids == other._query_ids
            and np.array_equal(self._matrix, other._matrix, equal_nan=True)
            and repeats_key(self._repeats) == repeats_key(other._repeats)
            and self._clusters == other._clusters
            and self.failed == other.failed
            and self.missing_from_run == other.missing_from_run
            and self.unjudged == other.unjudged
            and self.manifest == other.manifest
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"PerQueryResults(name={self.name!r}, metrics={list(self._metrics)}, "
            f"n_queries={self.n_queries})"
        )

    def to_dict(self) -> dict[str, dict[QueryId, float]]:
        """All the values.

        Returns
        -------
        dict
            ``{metric: {query_id: value}}`` (NaN where undefined; a repeated item's value is
            the mean of its usable repeats).
        """
        return {metric: self[metric] for metric in self._metrics}

    def means(self) -> dict[str, MeanScore]:
        """Every metric's mean over the queries where its value is defined.

        Returns
        -------
        dict
            ``{metric: MeanScore}``: each mean says over how many queries it is and how many were
            undefined (a failed value counts as undefined).
        """
        means = {}
        for row, metric in enumerate(self._metrics):
            values = self._matrix[row]
            defined = values[~np.isnan(values)]
            means[metric] = MeanScore(
                float(defined.mean()) if defined.size else math.nan,
                n_queries=int(defined.size),
                n_undefined=int(values.size - defined.size),
                metric=metric,
            )
        return means

    def select(
        self, query_ids: Sequence[QueryId] | None = None, metrics: Sequence[str] | None = None
    ) -> PerQueryResults:
        """The values of some queries (in the given order) and some metrics.

        Parameters
        ----------
        query_ids
            The queries (default: all, in order).
        metrics
            The metrics (default: all).

        Returns
        -------
        PerQueryResults
            The selection, with the same name and manifest (the definitions of the metrics
            kept), the repeats, clusters and failures of the items kept.

        Raises
        ------
        KeyError
            A query or metric that is not here.
        """
        ids = list(self._query_ids if query_ids is None else query_ids)
        names = list(self._metrics if metrics is None else metrics)
        missing = [q for q in ids if q not in self._position]
        if missing:
            raise KeyError(f"queries {shown(missing)} are not in {self.name or 'these results'}")
        columns = [self._position[q] for q in ids]
        kept = set(ids)
        clusters = (
            None
            if self._clusters is None
            else {q: self._clusters[c] for q, c in zip(ids, columns, strict=True)}
        )
        return PerQueryResults(
            {m: self._matrix[self._row(m)][columns] for m in names},
            ids,
            name=self.name,
            manifest=self.manifest.restricted(names),
            repeats={
                m: {q: r for q, r in self._repeats[m].items() if q in kept}
                for m in names
                if m in self._repeats
            },
            clusters=clusters,
            failed={m: [q for q in self.failed.get(m, ()) if q in kept] for m in names},
            missing_from_run=self.missing_from_run,
            unjudged=self.unjudged,
        )

    def renamed(self, name: str | None) -> PerQueryResults:
        """The same values under another system name.

        Parameters
        ----------
        name
            The new name.

        Returns
        -------
        PerQueryResults
            A copy sharing the (read-only) values.
        """
        copy = PerQueryResults.__new__(PerQueryResults)
        copy.__dict__.update(self.__dict__)
        copy.name = name
        return copy

    def with_manifest(self, manifest: Manifest) -> PerQueryResults:
        """The same values with another manifest.

        Parameters
        ----------
        manifest
            The manifest (its definitions must be of metrics here).

        Returns
        -------
        PerQueryResults
            A copy sharing the (read-only) values.
        """
        copy = self.renamed(self.name)
        copy.manifest = copy._checked_manifest(manifest, None)
        return copy

    def with_clusters(
        self, clusters: Mapping[Any, Any], argument: str = "clusters"
    ) -> PerQueryResults:
        """The same values with each item's cluster taken from ``clusters`` (``{item:
        cluster}``; it may hold other items too; an int item id also matches its text, as a
        file of clusters writes it).

        Parameters
        ----------
        clusters
            ``{item: cluster}``.
        argument
            The argument named in errors.

        Returns
        -------
        PerQueryResults
            A copy sharing the (read-only) values, with the clusters.

        Raises
        ------
        InvalidInputError
            An item without a cluster; a cluster that differs from one these values record.
        """
        if not isinstance(clusters, Mapping):
            raise InputTypeError(f"{argument}: expected {{item: cluster}}, got {clusters!r:.80}")
        found, recorded = {}, self.clusters or {}
        for q in self._query_ids:
            key = q if q in clusters else str(q)
            if key not in clusters:
                raise InvalidInputError(
                    f"{argument}: no cluster for item {q!r} of {self.name or 'the values'}; "
                    "give every compared item its cluster"
                )
            found[q] = item_id(clusters[key], f"{argument}[{key!r}]")
            if q in recorded and recorded[q] != found[q]:
                raise InvalidInputError(
                    f"{argument}: puts item {q!r} in cluster {found[q]!r}, but "
                    f"{self.name or 'the values'} record it in {recorded[q]!r}; give the same "
                    "clusters, or leave the argument out to use the recorded ones"
                )
        copy = self.renamed(self.name)
        copy._clusters = tuple(found[q] for q in self._query_ids)
        return copy

    def write(self, path: str | os.PathLike[str], *, format: str | None = None) -> Path:
        """Write the values to a file, atomically, with their row count and checksum (the
        saved result :class:`SavedPerQueryResults`).

        Parameters
        ----------
        path
            The file; its suffix gives the format (``.json``, ``.jsonl``, ``.yaml``/``.yml``,
            ``.toml``).
        format
            The format, when the suffix does not say it.

        Returns
        -------
        pathlib.Path
            The path written.
        """
        return SavedPerQueryResults(self).write(path, format=format)

    @classmethod
    def read(cls, path: str | os.PathLike[str], *, format: str | None = None) -> PerQueryResults:
        """Read values written by :meth:`write`.

        Parameters
        ----------
        path
            The file.
        format
            Its format, when the suffix does not say it.

        Returns
        -------
        PerQueryResults
            The values (equal to those written; ``manifest.verified`` says whether the file's
            checksum was checked).

        Raises
        ------
        InvalidInputError
            A file that is not exactly such values (edited, truncated, damaged, another kind, a
            newer format), naming the file and what does not match.
        """
        return SavedPerQueryResults.read(path, format=format).values


class SavedPerQueryResults:
    """The saved result of :class:`PerQueryResults` (kind ``"ragmeter.per_query"``): what
    :meth:`PerQueryResults.write` writes and what the saved-result readers
    (:func:`ragmeter.io.read_saved`) give back.

    Parameters
    ----------
    values
        The values.
    """

    #: What a saved file's ``kind`` field says.
    KIND: ClassVar[str] = SavedHead.KIND
    #: The format :meth:`write` writes.
    FORMAT_VERSION: ClassVar[int] = SavedHead.FORMAT_VERSION
    #: The formats :meth:`read` reads.
    READABLE_VERSIONS: ClassVar[tuple[int, ...]] = SavedHead.READABLE_VERSIONS

    def __init__(self, values: PerQueryResults) -> None:
        """See the class documentation."""
        if not isinstance(values, PerQueryResults):
            raise InputTypeError(f"values: expected PerQueryResults, got {type(values).__name__}")
        self.values = values

    def __eq__(self, other: object) -> bool:
        """Equal values."""
        if not isinstance(other, SavedPerQueryResults):
            return NotImplemented
        return self.values == other.values

    __hash__ = None  # type: ignore[assignment]

    def per_query_results(self) -> PerQueryResults:
        """The values.

        Returns
        -------
        PerQueryResults
            The values.
        """
        return self.values

    def to_dict(self) -> dict[str, Any]:
        """The saved form (JSON, YAML, TOML; see :meth:`PerQueryForms.saved_dict
        <ragmeter._per_query_forms.PerQueryForms.saved_dict>`).

        Returns
        -------
        dict
            JSON-ready (NaN stays NaN: the writers make it null in JSON).
        """
        return self.values.saved_dict()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SavedPerQueryResults:
        """Rebuild the saved values from :meth:`to_dict` output, checking every field.

        Parameters
        ----------
        data
            The saved form.

        Returns
        -------
        SavedPerQueryResults
            The values.
        """
        return cls(PerQueryResults.from_saved_dict(data))

    def to_rows(self) -> list[dict[str, Any]]:
        """One row per item (JSONL).

        Returns
        -------
        list of dict
            The rows.
        """
        return self.values.saved_rows()

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> SavedPerQueryResults:
        """Rebuild the saved values from :meth:`to_rows` output, checking every field.

        Parameters
        ----------
        rows
            One row per item.

        Returns
        -------
        SavedPerQueryResults
            The values.
        """
        return cls(PerQueryResults.from_saved_rows(rows))

    def write(self, path: str | os.PathLike[str], *, format: str | None = None) -> Path:
        """Write the values to a file, atomically.

        Parameters
        ----------
        path
            The file; its suffix gives the format.
        format
            The format, when the suffix does not say it.

        Returns
        -------
        pathlib.Path
            The path written.
        """
        return write_report(self, path, format=format)

    @classmethod
    def read(
        cls, path: str | os.PathLike[str], *, format: str | None = None
    ) -> SavedPerQueryResults:
        """Read values written by :meth:`write`.

        Parameters
        ----------
        path
            The file.
        format
            Its format, when the suffix does not say it.

        Returns
        -------
        SavedPerQueryResults
            The values.
        """
        return load_report(cls, path, format=format)


def per_query_results(results: Any, name: str | None = None) -> PerQueryResults:
    """Per-item results of any kind as :class:`PerQueryResults` (see the module documentation
    for what is read and how).

    Parameters
    ----------
    results
        Per-item results: ``PerQueryResults``, anything with a ``per_query_results()`` method
        (``MetricResults`` of per-query values, ``RetrievalEvaluation``, ``JudgeResults``), or
        ``{metric: {item_id: value or [repeats]}}``.
    name
        The system's name (default: the name the results carry).

    Returns
    -------
    PerQueryResults
        The values, with the name, repeats, failures and manifest.

    Raises
    ------
    InvalidInputError
        Values over all queries instead of per query (``MetricResults`` of means), no numeric
        per-query value, values not aligned with their queries.
    InputTypeError
        Anything else.

    Examples
    --------
    >>> from ragmeter import ranking_metrics
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> values = per_query_results(ranking_metrics(qrels, runs, metrics=["mrr"], average=None))
    >>> values["mrr"]
    {'q1': 1.0, 'q2': 0.5}
    >>> values.manifest.producer, values.manifest.settings["relevance_threshold"]
    ('ragmeter.ranking_metrics', 1.0)
    """
    if isinstance(results, PerQueryResults):
        return results if name is None or name == results.name else results.renamed(name)
    convert = getattr(results, "per_query_results", None)
    if callable(convert):
        converted = convert()
        if not isinstance(converted, PerQueryResults):
            raise InputTypeError(
                f"results: {type(results).__name__}.per_query_results() returned "
                f"{type(converted).__name__}, not PerQueryResults"
            )
        return per_query_results(converted, name)
    if isinstance(results, Mapping):
        return PerQueryResults(results, name=name)
    raise InputTypeError(
        f"results: cannot read per-query values from a {type(results).__name__}; pass the "
        "per-query results of evaluate_trec(per_query=True) or ranking_metrics(average=None), "
        "a RetrievalEvaluation, JudgeResults, PerQueryResults or {metric: {query_id: value}}"
    )
