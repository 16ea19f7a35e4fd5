"""One system's per-query values: what every evaluation produces and every comparison reads.

:class:`PerQueryResults` (defined with the other results in :mod:`ragmeter.ranking.results`)
holds ``{metric: {query_id: value}}`` as one numpy array (metrics x queries, NaN where a value
is undefined) with the query ids, the system's name and the settings the values were computed
with. :func:`per_query_results` builds one from anything ragmeter evaluates:

* the per-query results of :func:`~ragmeter.evaluate_trec` (``per_query=True``) and of
  :func:`~ragmeter.ranking_metrics` (``average=None``), any :class:`~ragmeter.MetricResults`,
  and a :class:`~ragmeter.RetrievalEvaluation`: anything with a ``per_query_results()``
  method;
* the results of the LLM judges (:class:`ragmeter.judges.JudgeResults`), paired by sample id:
  an ``ok`` score is its value, an ``undefined`` score is NaN, and an ``error`` score is NaN
  listed in :attr:`PerQueryResults.failed` (a failure is never a number); with
  ``evaluate(repeats=N)`` the value is the sample's mean over its ok repeats, and the
  parameters say ``judge_value="mean of N repeats"``;
* a plain mapping ``{metric: {query_id: value}}``.

Exports: :meth:`~PerQueryResults.to_pandas`, :meth:`~PerQueryResults.to_polars` and
:meth:`~PerQueryResults.to_arrow` (the ``pandas``, ``polars`` and ``arrow`` extras, imported
on first use).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import Any

from .exceptions import InputTypeError, InvalidInputError
from .ranking.results import PerQueryResults, _shown

__all__ = ["VALUE_SETTINGS", "PerQueryResults", "per_query_results"]

#: Settings that change what a value means: systems evaluated with different ones cannot be
#: compared value for value.
VALUE_SETTINGS = ("relevance_threshold", "zero_division")


def _judge_results_type() -> type | None:
    """The judges' results class if the judges package was imported (a JudgeResults can only
    exist then), without importing it: ``import ragmeter`` stays light."""
    module = sys.modules.get("ragmeter.judges.results")
    return None if module is None else getattr(module, "JudgeResults", None)


def _from_judges(results: Any, name: str | None) -> PerQueryResults:
    sample_ids: list[Any] = []
    seen: set[Any] = set()
    values: dict[str, dict[Any, float]] = {m: {} for m in results.metric_names}
    failed: dict[str, list[Any]] = {m: [] for m in results.metric_names}
    for row in results.rows:
        if row.sample_id not in seen:
            seen.add(row.sample_id)
            sample_ids.append(row.sample_id)
        ok = row.score.status == "ok" and row.score.value is not None
        values[row.metric][row.sample_id] = float(row.score.value) if ok else math.nan
        if row.score.status == "error":
            failed[row.metric].append(row.sample_id)
    for metric, by_sample in values.items():
        absent = [s for s in sample_ids if s not in by_sample]
        if absent:
            raise InvalidInputError(
                f"results: the judges have no row of {metric!r} for samples {_shown(absent)}"
            )
    repeats = int(getattr(results, "repeats", 1) or 1)
    return PerQueryResults(
        values,
        sample_ids,
        name=name,
        # With evaluate(repeats=N) each value is a sample's mean over N judgements: the
        # parameters say so, and runs judged a different number of times are not paired.
        parameters={"judge_value": f"mean of {repeats} repeats"} if repeats > 1 else None,
        failed=failed,
    )


def per_query_results(results: Any, name: str | None = None) -> PerQueryResults:
    """Per-query results of any kind as :class:`PerQueryResults` (see the module
    documentation for what is read and how).

    Parameters
    ----------
    results
        Per-query results: ``MetricResults`` of per-query values, a ``RetrievalEvaluation`` (or
        anything with ``per_query_results()``), ``JudgeResults``, ``PerQueryResults`` or
        ``{metric: {query_id: value}}``.
    name
        The system's name (default: the name the results carry).

    Returns
    -------
    PerQueryResults
        The values, with the name, settings and failures.

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
    judges = _judge_results_type()
    if judges is not None and isinstance(results, judges):
        return _from_judges(results, name)
    if isinstance(results, Mapping):
        return PerQueryResults(results, name=name)
    raise InputTypeError(
        f"results: cannot read per-query values from a {type(results).__name__}; pass the "
        "per-query results of evaluate_trec(per_query=True) or ranking_metrics(average=None), "
        "a RetrievalEvaluation, JudgeResults, PerQueryResults or {metric: {query_id: value}}"
    )
