"""From prepared rankings to per-query values, and from those to values over queries.

Every input form (mappings, sequences, TREC files, JSON files) ends here: the Rust core gives
the per-query values of the numeric measures (NaN where undefined); this module adds the
measures that are not numbers (``runid``, ``relstring``), trec_eval's rules for judged queries
missing from the run, ``zero_division``, and the summaries over queries, which follow
trec_eval exactly: values added one by one in trec_eval's query order (query ids sorted
byte-wise) in double precision, geometric means over ``log(max(value, 0.00001))``, counts as
integers.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .. import _core
from .._inputs import AlignedQueries, absent_queries
from ..exceptions import UndefinedMetricWarning
from ..manifest import Manifest
from ..options import EvaluationOptions
from ..summaries import CountScore, MeanScore
from .columns import (
    MIN_GEO_MEAN,
    built_columns,
    check_judgment_form,
    column_args,
    evaluated_measures,
    kernel_measures,
    needs_all_judged,
    needs_ties,
)
from .metric_results import MetricResults
from .names import Measure

__all__ = [
    "MIN_GEO_MEAN",
    "QueryValues",
    "compute_values",
    "joined_values",
    "kernel_measures",
    "needs_all_judged",
    "needs_ties",
    "resolved_numbers",
    "summarize",
]

Average = Literal["mean"] | None


@dataclass
class QueryValues:
    """Per-query values of some measures over aligned queries, before ``zero_division``.

    What :func:`~ragmeter.ranking.functions.ranking_values` and :func:`compute_values`
    return and :func:`summarize` reads; the rows are the queries, the columns the measures.

    Parameters
    ----------
    measures
        The measures, one per column.
    numbers
        Shape (n_queries, n_measures); NaN where undefined (and in the columns of text
        measures).
    queries
        The aligned queries: their ids (``queries.query_ids``, one per row), whether they
        came keyed by id, and those missing from the run or unjudged.
    options
        The evaluation's options (``zero_division`` is applied by :func:`summarize`).
    texts
        Per-query text of ``runid`` and ``relstring``, by column.
    complete_totals
        Per-query values whose total is the summary under ``missing="zero"``, by column.
    """

    measures: list[Measure]
    numbers: np.ndarray
    queries: AlignedQueries
    options: EvaluationOptions
    texts: dict[int, list[str]] = field(default_factory=dict)
    complete_totals: dict[int, np.ndarray] = field(default_factory=dict)

    def select(self, rows: np.ndarray) -> QueryValues:
        """The values of the rows where ``rows`` (a boolean mask) is true.

        Parameters
        ----------
        rows
            A boolean array with one entry per query.

        Returns
        -------
        QueryValues
            The selected queries' values, in their order; the queries' judgments and
            rankings are not carried over.
        """
        ids = [q for q, keep in zip(self.queries.query_ids, rows, strict=True) if keep]
        queries = AlignedQueries(
            query_ids=ids,
            judgments=[],
            rankings=[],
            keyed=self.queries.keyed,
            missing_from_run=self.queries.missing_from_run,
            unjudged=self.queries.unjudged,
        )
        return QueryValues(
            measures=self.measures,
            numbers=self.numbers[rows],
            queries=queries,
            options=self.options,
            texts={
                c: [t for t, keep in zip(v, rows, strict=True) if keep]
                for c, v in self.texts.items()
            },
            complete_totals={c: v[rows] for c, v in self.complete_totals.items()},
        )


def compute_values(
    prepared: _core.PreparedRankings,
    measures: list[Measure],
    queries: AlignedQueries,
    options: EvaluationOptions,
    *,
    in_run: np.ndarray | None = None,
    run_tag: str | None = None,
) -> QueryValues:
    """Evaluate ``measures`` on ``prepared`` (its rows are ``queries``).

    ``in_run`` marks the queries that have a ranking (the others were judged but missing from
    the run); ``run_tag`` is the run's tag, for ``runid``.

    Parameters
    ----------
    prepared
        The rankings as the Rust core prepared them (one row per query).
    measures
        The measures to compute.
    queries
        The aligned queries of ``prepared``'s rows.
    options
        The evaluation's options.
    in_run
        A boolean array, true for the queries that have a ranking; with ``missing="zero"``
        the others are scored as trec_eval ``-c`` scores them. None: every query has one.
    run_tag
        The run's tag (the 6th column of a TREC run), the value of ``runid``.

    Returns
    -------
    QueryValues
        The per-query values, NaN where undefined.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: ``runid`` named alone without a run tag, a diversity measure without
        judgments by subtopic, or another measure with them.
    """
    measures = evaluated_measures(measures, run_tag)
    check_judgment_form(measures, prepared.has_subtopics)
    missing_rows = None
    if in_run is not None and not in_run.all() and options.missing == "zero":
        # trec_eval -c: a judged topic missing from the run is a ranking of one unjudged
        # document (and a few measures are reset for it, as trec_eval resets them).
        missing_rows = (~in_run).tolist()
    table = prepared.evaluate_columns(
        built_columns(column_args(measures, options)),
        options.relevance_threshold,
        missing_rows,
        options.missing == "zero",
        run_tag,
        options.n_threads,
    )
    numbers = table.numbers()
    texts = table.texts()
    complete_totals = table.complete_totals()
    return QueryValues(
        measures=measures,
        numbers=numbers,
        queries=queries,
        options=options,
        texts=texts,
        complete_totals=complete_totals,
    )


def joined_values(
    prepared: Any,
    measures: list[Measure],
    options: EvaluationOptions,
    *,
    query_ids: list[Any],
    in_run: Sequence[bool],
    run_only: list[Any],
    run_tag: str | None = None,
) -> QueryValues:
    """:func:`compute_values` for judgments and a run joined in the Rust core (TREC files,
    tables).

    Parameters
    ----------
    prepared
        The prepared rankings (``_core.PreparedRankings``) of the judged queries.
    measures
        The measures to compute.
    options
        The evaluation's options: judged queries the run lacks are scored or dropped as
        ``options.missing`` says (the caller has refused them for ``"raise"``).
    query_ids
        The judged queries, in trec_eval's order.
    in_run
        For each of them, whether the run has it.
    run_only
        The run's queries without judgments (listed, never evaluated).
    run_tag
        The value of ``runid``.

    Returns
    -------
    QueryValues
        One row per evaluated query.
    """
    in_run_mask = _mask(in_run)
    queries = AlignedQueries(
        query_ids=query_ids,
        judgments=[],
        rankings=[],
        keyed=True,
        missing_from_run=absent_queries(query_ids, in_run),
        unjudged=run_only,
    )
    values = compute_values(
        prepared, measures, queries, options, in_run=in_run_mask, run_tag=run_tag
    )
    if options.missing == "skip" and not in_run_mask.all():
        values = values.select(in_run_mask)
    return values


def _mask(flags: Sequence[bool]) -> np.ndarray:
    """``flags`` as a boolean array. The core's list of bools is read as bytes: half the time
    of numpy reading it object by object."""
    if isinstance(flags, list):
        try:
            mask: np.ndarray = np.frombuffer(bytes(flags), dtype=np.uint8) != 0
            return mask
        except (TypeError, ValueError):
            pass
    return np.asarray(flags, dtype=bool)


def trec_order(query_ids: Sequence[Any], keyed: bool) -> np.ndarray:
    """The order in which trec_eval adds up queries: ids sorted byte-wise as text (ids of
    sequences: their positions)."""
    if not keyed:
        return np.arange(len(query_ids))
    # Exact str and int ids, sorted by their bytes in the core.
    order = _core.trec_order(query_ids if isinstance(query_ids, list) else list(query_ids))
    if order is not None:
        return order
    keys = [str(q).encode("utf-8", "surrogatepass") for q in query_ids]
    return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.intp)


def _sequential_sum(values: np.ndarray) -> float:
    """The sum of ``values`` added one by one, as trec_eval adds them (numpy's sum adds
    pairwise, which can change the last printed digit); the core's, which the command's
    report also uses."""
    return _core.sequential_sum(np.ascontiguousarray(values, dtype=np.float64))


def resolved_numbers(values: QueryValues, *, stacklevel: int = 2) -> tuple[np.ndarray, list[int]]:
    """The per-query numbers with ``zero_division`` applied, and each column's count of
    undefined values (the first step of :func:`summarize`, for readers of the whole matrix,
    such as the command's per-topic report).

    Undefined values become the family's trec_eval value (``"trec_eval"``), 0.0 with an
    :class:`~ragmeter.UndefinedMetricWarning` per measure (``"warn"``), the number given, or
    stay NaN (``np.nan``); text columns stay NaN. ``values.numbers`` is never changed: a copy
    is made when a value is replaced.

    Parameters
    ----------
    values
        The per-query values (:func:`compute_values`).
    stacklevel
        The warnings' ``stacklevel``, so that they point at the user's call.

    Returns
    -------
    tuple[numpy.ndarray, list[int]]
        Shape (n_queries, n_measures), and one count per column.

    Examples
    --------
    >>> import numpy as np
    >>> from ragmeter.options import EvaluationOptions
    >>> from ragmeter.ranking.functions import ranking_values
    >>> values = ranking_values(
    ...     {"q1": {"d1": 1}, "q2": {"d9": 0}},
    ...     {"q1": ["d2", "d1"], "q2": ["d1"]},
    ...     ["recall@1", "mrr"],
    ...     EvaluationOptions(zero_division=1.0),
    ... )
    >>> numbers, undefined = resolved_numbers(values)
    >>> numbers.tolist(), undefined
    ([[0.0, 0.5], [1.0, 0.0]], [1, 0])
    """
    n = len(values.queries.query_ids)
    zero_division = values.options.zero_division
    exclude_undefined = isinstance(zero_division, float) and math.isnan(zero_division)
    # Every numeric column at once (a handful of numpy calls, whatever the number of
    # measures: a call over a few queries costs microseconds, not a loop of array calls).
    numbers = values.numbers
    undefined = np.isnan(numbers)
    undefined_counts = undefined.sum(axis=0).tolist() if n else [0] * numbers.shape[1]
    if any(undefined_counts) and not exclude_undefined:
        numbers = numbers.copy()
    for column, measure in enumerate(values.measures):
        n_undefined = undefined_counts[column]
        fam = measure.family
        if n_undefined and column not in values.texts:
            rows = undefined[:, column]
            if zero_division == "trec_eval":
                numbers[rows, column] = fam.trec_eval_undefined
            elif zero_division == "warn":
                warnings.warn(
                    f"{measure.name} is undefined for {n_undefined} of {n} queries "
                    f"({fam.undefined or 'no value'}); they score 0.0. Pass zero_division=np.nan "
                    f"to exclude "
                    f"them from the mean, or 0.0 or 1.0 to choose their value silently.",
                    UndefinedMetricWarning,
                    stacklevel=stacklevel,
                )
                numbers[rows, column] = 0.0
            elif not exclude_undefined:
                numbers[rows, column] = float(zero_division)
    return numbers, undefined_counts


def summarize(
    values: QueryValues,
    *,
    average: Average,
    stacklevel: int = 3,
    producer: str = "ragmeter.ranking_metrics",
) -> MetricResults:
    """Apply ``zero_division`` to the per-query values and summarise them (or not).

    The summaries follow trec_eval: values added one by one in trec_eval's query order, in
    double precision; a geometric mean over ``log(max(value, 0.00001))``; counts as ints.
    With ``zero_division=np.nan`` the undefined values are left out of the mean.

    Parameters
    ----------
    values
        The per-query values (:func:`compute_values`).
    average
        ``"mean"``: one summary per measure (a :class:`~ragmeter.MeanScore` or a
        :class:`~ragmeter.CountScore`; ``runid`` a ``str``); None: the per-query values, by
        query id for keyed queries, in input order otherwise.
    stacklevel
        The ``stacklevel`` of the :class:`~ragmeter.UndefinedMetricWarning`, so that it
        points at the user's call.
    producer
        What evaluated, for the results' :class:`~ragmeter.Manifest` (which records the
        options that change the numbers and each measure's definition).

    Returns
    -------
    MetricResults
        ``{measure name: value}``, with the queries' ids and those missing from the run or
        unjudged.

    Examples
    --------
    ``q2`` has no relevant document, so its recall@1 is undefined and left out of the mean;
    MRR is 1/2 for ``q1`` (relevant document second) and 0 for ``q2``:

    >>> import numpy as np
    >>> from ragmeter.options import EvaluationOptions
    >>> from ragmeter.ranking.functions import ranking_values
    >>> values = ranking_values(
    ...     {"q1": {"d1": 1}, "q2": {"d9": 0}},
    ...     {"q1": ["d2", "d1"], "q2": ["d1"]},
    ...     ["recall@1", "mrr"],
    ...     EvaluationOptions(zero_division=np.nan),
    ... )
    >>> values.numbers.tolist()
    [[0.0, 0.5], [nan, 0.0]]
    >>> summarize(values, average="mean")
    {'recall@1': 0.0, 'mrr': 0.25}
    """
    queries = values.queries
    results = MetricResults()
    results.manifest = Manifest.of_evaluation(producer, values.options, values.measures)
    results.query_ids = queries.query_ids
    results.missing_from_run = queries.missing_from_run
    results.unjudged = queries.unjudged
    n = len(queries.query_ids)
    zero_division = values.options.zero_division
    exclude_undefined = isinstance(zero_division, float) and math.isnan(zero_division)
    numbers, undefined_counts = resolved_numbers(values, stacklevel=stacklevel + 1)
    order = trec_order(queries.query_ids, queries.keyed) if average is not None else None
    sums: list[float] | None = None
    for column, measure in enumerate(values.measures):
        fam = measure.family
        if column in values.texts:
            texts = values.texts[column]
            if average is None:
                results[measure.name] = _per_query(queries, texts)
            elif fam.summary == "run":
                results[measure.name] = texts[0] if texts else None
            continue
        n_undefined = undefined_counts[column]
        if average is None:
            per_query = numbers[:, column]
            if fam.value_type == "int":
                results[measure.name] = _per_query(queries, [int(v) for v in per_query])
            elif queries.keyed:
                results[measure.name] = dict(
                    zip(queries.query_ids, per_query.tolist(), strict=True)
                )
            else:
                results[measure.name] = per_query.copy()
            continue
        assert order is not None
        if fam.summary == "mean" and not (exclude_undefined and n_undefined):
            if sums is None:
                # Every column added one by one in trec_eval's query order, as trec_eval's
                # loop (numpy's sum is pairwise), by the core that sums the command's report.
                sums = _core.sequential_column_sums(numbers, order) if n else []
            results[measure.name] = MeanScore(
                sums[column] / n if n else math.nan,
                n_queries=n,
                n_undefined=n_undefined,
                metric=measure.name,
            )
            continue
        results[measure.name] = _summary(
            measure,
            numbers[order, column],
            values.complete_totals.get(column),
            n,
            n_undefined,
            exclude_undefined=exclude_undefined,
        )
    return results


def _per_query(queries: AlignedQueries, items: list[Any]) -> Any:
    if queries.keyed:
        return dict(zip(queries.query_ids, items, strict=True))
    return items


def summary_value(measure: Measure, values: Sequence[float]) -> float:
    """The value over queries of ``measure`` from its per-query ``values`` (as a number),
    formed as the measure's family forms it: a mean, a sum for counts, a geometric mean over
    ``log(max(value, 0.00001))`` for ``gm_*`` (the rule :func:`summarize` applies).

    >>> from ragmeter.ranking import parse_metric
    >>> summary_value(parse_metric("gm_map"), [0.25, 1.0])
    0.5
    """
    ordered = np.asarray(values, dtype=float)
    n = int(ordered.size)
    return float(_summary(measure, ordered, None, n, 0, exclude_undefined=False))


def _summary(
    measure: Measure,
    ordered: np.ndarray,
    complete_totals: np.ndarray | None,
    n: int,
    n_undefined: int,
    *,
    exclude_undefined: bool,
) -> Any:
    fam = measure.family
    if fam.summary == "count":
        return CountScore(n, n_queries=n, metric=measure.name)
    if fam.summary == "sum":
        totals = ordered if complete_totals is None else complete_totals
        return CountScore(round(float(np.sum(totals))), n_queries=n, metric=measure.name)
    # NaN left by zero_division=np.nan is left out; NaN that trec_eval prints stays in (and
    # makes the mean NaN, as in trec_eval).
    defined = ordered[~np.isnan(ordered)] if exclude_undefined else ordered
    if fam.summary == "geometric":
        # trec_eval's MAX(value, MIN_GEO_MEAN), a NaN value counting as the floor (NaN for no
        # value): the core's, which the command's report also uses.
        value = _core.geometric_mean(np.ascontiguousarray(defined, dtype=np.float64))
    else:
        value = _sequential_sum(defined) / defined.size if defined.size else math.nan
    return MeanScore(
        value, n_queries=int(defined.size), n_undefined=n_undefined, metric=measure.name
    )
