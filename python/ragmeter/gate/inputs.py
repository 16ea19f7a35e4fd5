"""What a gate reads: one system's per-item values, the repeats of judged items, and what the
values mean (metric definitions, settings, judge identity).

The values are :class:`~ragmeter.PerQueryResults`, read the one way every consumer reads them:
:func:`gate_values` takes anything :func:`~ragmeter.per_query_results` reads (a
``RetrievalEvaluation``, ``MetricResults`` of per-query values, ``JudgeResults``,
``PerQueryResults``, ``{metric: {item: value or [repeats]}}``) and the saved forms of those as
dicts (a judges' report, a stored baseline); :func:`read_gate_file` reads a file through the
file door (:func:`ragmeter.io.read_per_query`: any saved result of one system's values, or a
table of per-item values in the long or wide form, CSV, TSV, Parquet or JSON lines).
:class:`GateValues` is the gate's view of them: the values, their repeats and failures, and
their manifest's settings, judge, version and definitions, under the names the gate's
decision reads.

Repeats: when an item (a query, a judged sample) has several values for a metric (the judge
asked several times, or a table's ``repeat`` column numbers them), the gate uses the item's
mean and keeps the repeats, so the judge's variance is counted in the spread of the item
means and an item whose repeats disagree is reported as flaky. Rows of one item in a table
without a ``repeat`` column are refused, never averaged.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._core import __version__
from ..exceptions import InputTypeError, InvalidInputError
from ..io import FORMATS, read_per_query
from ..io._saved import kind_of, saved_result_of
from ..per_query import (
    PER_QUERY_KIND,
    PerQueryResults,
    SavedPerQueryResults,
    measure_definition,
    per_query_results,
)
from ..reports import saved_data

__all__ = [
    "BASELINE_KIND",
    "BASELINE_SCHEMA_VERSION",
    "GateValues",
    "gate_values",
    "metric_definition",
    "read_gate_file",
]

#: The ``kind`` of a stored gate baseline: the saved per-query values, with their manifest
#: (baselines of kind ``"ragmeter.gate-baseline"``, written before, are read too).
BASELINE_KIND = PER_QUERY_KIND
#: The format version of a stored baseline.
BASELINE_SCHEMA_VERSION = SavedPerQueryResults.FORMAT_VERSION

#: What a ranking metric's name means (see :func:`ragmeter.manifest.measure_definition`).
metric_definition = measure_definition


@dataclass(frozen=True)
class GateValues:
    """One system's per-item values as the gate reads them: a view of
    :class:`~ragmeter.PerQueryResults` (:meth:`of`) under the names the gate's decision reads.

    Parameters
    ----------
    values
        The per-item values (for repeated items, the mean of their usable repeats; NaN where
        undefined or where every repeat failed).
    repeats
        ``{metric: {item: repeats}}`` for items with more than one value.
    failed
        ``{metric: items}`` with at least one failed judge call.
    settings
        The evaluation settings the values were computed with (relevance threshold...).
    judges
        The judges' identity (judge, judges, embedder, without a URL's host or port), or
        None for values no judge produced.
    ragmeter_version
        The version that computed the values (None when unknown).
    definitions
        The metric definitions recorded with the values (None: nothing was recorded, values
        from a table or a mapping: those of this version's names).
    """

    values: PerQueryResults
    repeats: Mapping[str, Mapping[Any, tuple[float, ...]]] = field(default_factory=dict)
    failed: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    settings: Mapping[str, Any] = field(default_factory=dict)
    judges: Mapping[str, Any] | None = None
    ragmeter_version: str | None = None
    definitions: Mapping[str, Any] | None = None

    @classmethod
    def of(cls, values: PerQueryResults) -> GateValues:
        """The gate's view of per-item values: their repeats, failures and manifest.

        Parameters
        ----------
        values
            The values.

        Returns
        -------
        GateValues
            The view (``definitions`` None for values that record nothing: a table or a
            mapping not read from a saved file).
        """
        manifest = values.manifest
        saved = manifest.to_dict()
        recorded = manifest.verified is not None or manifest.producer not in ("mapping", "table")
        return cls(
            values,
            repeats={m: dict(r) for m, r in values.repeats.items()},
            failed=dict(values.failed),
            settings=saved["settings"],
            judges=saved["judge"],
            ragmeter_version=manifest.ragmeter_version,
            definitions=saved["measures"] if recorded else None,
        )

    @property
    def name(self) -> str | None:
        """The system's name."""
        return self.values.name

    def definition(self, metric: str) -> Any:
        """What ``metric`` meant when the values were computed (see :func:`metric_definition`)."""
        if self.definitions is not None and metric in self.definitions:
            return self.definitions[metric]
        return metric_definition(metric)

    def per_query_results(self) -> PerQueryResults:
        """The values with a manifest of this view's settings, judges, version and
        definitions (what a stored baseline holds).

        Returns
        -------
        PerQueryResults
            The values.
        """
        values = self.values
        metrics = values.metric_names
        measures = {m: d for m in metrics if (d := self.definition(m)) is not None}
        manifest = values.manifest.replace(
            ragmeter_version=self.ragmeter_version
            or values.manifest.ragmeter_version
            or __version__,
            measures=measures,
            settings=dict(self.settings),
            judge=None if self.judges is None else dict(self.judges),
            unknown=tuple(u for u in values.manifest.unknown if u not in self.settings),
            verified=None,
        )
        return PerQueryResults(
            {m: values.array(m) for m in metrics},
            values.query_ids,
            name=values.name,
            manifest=manifest,
            repeats={m: dict(r) for m, r in self.repeats.items()},
            clusters=values.clusters,
            failed={m: list(q) for m, q in self.failed.items()},
            missing_from_run=values.missing_from_run,
            unjudged=values.unjudged,
        )

    def manifest(self) -> dict[str, Any]:
        """What the values mean: the producer, the version, each metric's definition, the
        settings and the judges (stored with a baseline, checked when comparing with one).

        Returns
        -------
        dict
            :meth:`Manifest.to_dict <ragmeter.manifest.Manifest.to_dict>` of the values'
            manifest.
        """
        return self.per_query_results().manifest.to_dict()

    def to_dict(self) -> dict[str, Any]:
        """The values and their manifest as a stored baseline: the saved form of the per-query
        values (kind ``"ragmeter.per_query"``), JSON-ready (NaN is None), with its count and
        checksum.

        Returns
        -------
        dict
            The baseline.
        """
        data: dict[str, Any] = saved_data(SavedPerQueryResults(self.per_query_results()), "json")
        return data


def gate_values(results: Any, name: str | None = None, *, where: str = "results") -> GateValues:
    """One system's values for the gate, from anything ragmeter evaluates (see the module
    documentation).

    Parameters
    ----------
    results
        ``GateValues``, anything :func:`~ragmeter.per_query_results` reads (``JudgeResults``,
        ``RetrievalEvaluation``, ``MetricResults``, ``PerQueryResults``, ``{metric: {item:
        value or [repeats]}}``), or a saved result as a dict (a judges' report, a stored
        baseline).
    name
        The system's name (default: the one the results carry).
    where
        What to call the results in error messages (an argument or a file name).

    Returns
    -------
    GateValues
        The per-item values, their repeats, failures, settings and judges.

    Raises
    ------
    InvalidInputError
        Results without per-item values, a saved result that is not what ragmeter writes, a
        value that is not a number.
    InputTypeError
        Anything else.

    Examples
    --------
    >>> values = gate_values({"faithfulness": {"s1": [1.0, 0.0, 1.0], "s2": 1.0}})
    >>> values.values["faithfulness"]["s1"], values.repeats["faithfulness"]
    (0.6666666666666666, {'s1': (1.0, 0.0, 1.0)})
    """
    if isinstance(results, GateValues):
        if name is None or name == results.name:
            return results
        return GateValues(
            results.values.renamed(name),
            results.repeats,
            results.failed,
            results.settings,
            results.judges,
            results.ragmeter_version,
            results.definitions,
        )
    if isinstance(results, Mapping | list) and kind_of(results) is not None:
        saved = saved_result_of(results, where)
        results = saved.result
    try:
        converted = per_query_results(results, name)
    except InputTypeError as exc:
        raise InputTypeError(f"{where}: {exc}") from None
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None
    return GateValues.of(converted)


def read_gate_file(path: str | os.PathLike[str], name: str | None = None) -> GateValues:
    """One system's values from a file (:func:`ragmeter.io.read_per_query`: a saved result of
    one system's values, or a table of per-item values).

    Parameters
    ----------
    path
        The file.
    name
        The system's name (default: the file's stem).

    Returns
    -------
    GateValues
        The values.

    Raises
    ------
    InvalidInputError
        A file that cannot be read or parsed, a saved result that is not one system's per-item
        values (an evaluation of several runs or without ``-q``, a comparison), a table
        without ``query_id`` or with a second row of one item without a ``repeat`` column.
    """
    suffix = Path(path).suffix.lower()
    if suffix not in _READ_SUFFIXES:
        raise InvalidInputError(
            f"{os.fspath(path)}: the gate reads saved results and tables of per-item values "
            f"({', '.join(sorted(_READ_SUFFIXES))}); for a run file, give the judgments with "
            "--qrels so that both runs are evaluated"
        )
    return GateValues.of(read_per_query(path, name=name or Path(path).stem))


#: The suffixes of the files the gate reads: saved results and tables of records.
_READ_SUFFIXES = frozenset(s for f in FORMATS if f.records or f.saved for s in f.suffixes)
