"""The public functions: :func:`ranking_metrics` and one function per common measure.

The arithmetic runs in ragmeter's Rust core over all queries in parallel. The semantics are
trec_eval's, so the numbers agree with trec_eval, pytrec_eval and ir_measures:

* relevant means ``grade >= relevance_threshold`` (default 1); an unjudged document has grade 0
  and a negative grade means judged but unjudgeable (never relevant, no gain);
* ``R`` is the number of relevant judged documents of the query, retrieved or not;
* a ranking given as a sequence is already ordered, best first; a scored ranking
  ``{doc_id: score}`` is sorted by score descending, ties broken by doc id compared byte-wise
  (UTF-8), descending, exactly as trec_eval does; int ids are compared by their decimal text;
* P@k divides by k even when fewer than k documents were ranked; recall@k, AP and R-precision
  divide by R; nDCG uses the grade as a linear gain, a ``log2(rank + 1)`` discount and an ideal
  ranking of all judged positive grades cut at k; its gains ignore ``relevance_threshold``;
* a mean over queries adds the per-query values one by one in trec_eval's order (query ids
  sorted byte-wise as text) in double precision, so it prints exactly as trec_eval's;
* judgments and rankings may also be tables in long format, one row per document (pyarrow,
  polars, DuckDB, pandas; columns ``query_id``, ``doc_id`` and ``relevance``, ``score`` or
  ``rank``, as in ir_measures and ranx), read by the Rust core from their Arrow buffers with the
  same semantics.

Undefined values (division by ``R = 0``, or an ideal DCG of 0 for nDCG) follow
``zero_division`` as in scikit-learn: ``"warn"`` scores 0.0 with an
:class:`~ragmeter.UndefinedMetricWarning`, ``0.0``/``1.0`` score that value, ``np.nan`` leaves
the value undefined and excludes it from the mean. Precision, hit rate and MRR are always
defined. Every measure family, its formula, citation and undefined rule is declared in
:data:`ragmeter.ranking.FAMILIES`.

References: trec_eval 10.0 (NIST, https://github.com/usnistgov/trec_eval); K. Järvelin and
J. Kekäläinen, "Cumulated gain-based evaluation of IR techniques", ACM TOIS 20(4), 2002.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from .. import _core
from .._inputs import (
    AlignedQueries,
    TableColumns,
    absent_queries,
    align_queries,
    arrow_source,
    is_table,
    preview_ids,
)
from ..datasets import dataset_qrels, is_dataset_id
from ..exceptions import InvalidInputError, RagmeterError
from ..options import (
    Duplicates,
    EvaluationOptions,
    Missing,
    ZeroDivision,
    check_choice,
    check_positive_int,
)
from .evaluation import (
    Average,
    QueryValues,
    compute_values,
    joined_values,
    needs_all_judged,
    needs_ties,
    summarize,
)
from .metric_results import MetricResults
from .names import measures_of

__all__ = [
    "hit_rate_at_k",
    "mean_average_precision",
    "mean_reciprocal_rank",
    "ndcg_at_k",
    "precision_at_k",
    "r_precision",
    "ranking_metrics",
    "ranking_values",
    "read_table",
    "recall_at_k",
    "table_values",
]

#: The measures :func:`ranking_metrics` computes when none are named.
DEFAULT_METRICS = ("ndcg@10", "map", "recall@100", "mrr", "precision@10")


def ranking_metrics(
    y_true: Any,
    y_pred: Any,
    *,
    metrics: Iterable[str] | str = DEFAULT_METRICS,
    relevance_threshold: float | None = None,
    zero_division: ZeroDivision = "warn",
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    max_docs: int | None = None,
    judged_docs_only: bool = False,
    n_threads: int | None = None,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    relevance_col: str = "relevance",
    score_col: str = "score",
    rank_col: str = "rank",
) -> MetricResults:
    """Several ranking metrics in one validated pass.

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``, or a table in long format with
        one row per judged document (see Notes).
        An ``irds:<id>`` dataset id (``"irds:msmarco-passage/trec-dl-2019/judged"``) reads the
        judgments of that ``ir_datasets`` dataset (``pip install 'ragmeter[irds]'``).
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``, or
        a sequence of those, or a table with one row per ranked document.
    metrics
        Measure names in ragmeter's, trec_eval's, ir_measures' or ranx's syntax:
        ``"ndcg@10"``, ``"recall@100"``, ``"precision@5"``, ``"hit_rate@1"``, ``"mrr"``,
        ``"map"``, ``"bpref"``, ``"P.5,10"``, ``"all_trec"``, ``"P(rel=2)@5"``,
        ``"map@100-l2"``... (see :func:`ragmeter.parse_metric`).
    relevance_threshold
        Grade from which a document counts as relevant (trec_eval ``-l``). Default: 1, or the
        documented relevance level of an ``irds:`` dataset (2 for TREC DL passage).
    zero_division
        Value of an undefined metric: ``"warn"`` (0.0 and a warning), ``0.0``, ``1.0`` or
        ``np.nan`` (left out of the mean).
    duplicates
        ``"raise"`` refuses a ranking that repeats a doc id; ``"first"`` keeps its best position.
    missing
        What to do when mappings do not hold the same queries: ``"raise"``, ``"zero"`` (judged
        queries without a ranking score as empty rankings; trec_eval ``-c``) or ``"skip"``.
    average
        ``"mean"``: a :class:`MeanScore` per metric (a :class:`CountScore` for counts);
        ``None``: per-query values, a dict keyed by query id for mappings, an array in input
        order for sequences.
    max_docs
        Keep only the first ``max_docs`` ranked documents (trec_eval ``-M``).
    judged_docs_only
        Remove documents without a judgment from the rankings first (trec_eval ``-J``).
    n_threads
        Threads of the Rust core (default: ``RAGMETER_NUM_THREADS`` or all cores).
    query_col, doc_col, relevance_col, score_col, rank_col
        Column names of tables (ir_measures' and ranx's by default). A run table is ordered
        by its score column, or by its rank column (1 first) when it has no score column.

    Returns
    -------
    MetricResults
        ``{metric_name: value}``; its ``query_ids``, ``missing_from_run`` and ``unjudged``
        attributes say which queries were evaluated.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: an unknown measure, a bad option, mappings with different queries
        (``missing="raise"``), nothing to evaluate.
    InputTypeError
        A ``TypeError``: judgments or rankings of a type ragmeter cannot read.

    Notes
    -----
    Tables are objects with the Arrow PyCapsule interface (pyarrow Tables, RecordBatches and
    RecordBatchReaders, polars DataFrames, DuckDB results) or pandas DataFrames (through
    pyarrow: ``pip install 'ragmeter[arrow]'``). Their rows reach the Rust core as Arrow buffers,
    without a Python loop per row; ids are text or integer columns, dictionary-encoded or not
    (one id type per column pair), values are numeric columns. A table on one side and a
    mapping on the other are evaluated too (the table is then read into a mapping). Results
    are keyed by query id, as for mappings.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> ranking_metrics(qrels, runs, metrics=["mrr", "hit_rate@1"])
    {'mrr': 0.75, 'hit_rate@1': 0.5}

    The same judgments and run as tables (here pyarrow; polars or pandas work alike):

    >>> import pyarrow as pa
    >>> qrels = pa.table({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d4", "d3"],
    ...                   "relevance": [2, 1, 1]})
    >>> run = pa.table({"query_id": ["q1", "q1", "q1", "q2", "q2"],
    ...                 "doc_id": ["d4", "d2", "d1", "d5", "d3"], "rank": [1, 2, 3, 1, 2]})
    >>> ranking_metrics(qrels, run, metrics=["mrr", "hit_rate@1"])
    {'mrr': 0.75, 'hit_rate@1': 0.5}
    """
    check_choice("average", average, ("mean", None))
    if is_dataset_id(y_true):
        loaded = dataset_qrels(y_true)
        y_true = loaded.qrels
        if relevance_threshold is None and loaded.relevance_level is not None:
            relevance_threshold = loaded.relevance_level
    options = EvaluationOptions(
        relevance_threshold=1 if relevance_threshold is None else relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        max_docs=max_docs,
        judged_docs_only=judged_docs_only,
        n_threads=n_threads,
    )
    columns = TableColumns(query_col, doc_col, relevance_col, score_col, rank_col)
    values = ranking_values(y_true, y_pred, metrics, options, columns=columns)
    return summarize(values, average=average, producer="ragmeter.ranking_metrics")


def ranking_values(
    y_true: Any,
    y_pred: Any,
    metrics: Iterable[str] | str,
    options: EvaluationOptions,
    *,
    run_tag: str | None = None,
    columns: TableColumns | None = None,
    allow_empty: bool = False,
) -> QueryValues:
    """Per-query values (NaN where undefined) of the aligned queries, before
    ``zero_division``; ``run_tag`` is the value of ``runid``, if any. Tables (see
    :func:`ranking_metrics`) are read with ``columns``. With ``allow_empty``, no query to
    evaluate gives no values rather than an error.

    The first half of :func:`ranking_metrics` (the second is
    :func:`~ragmeter.ranking.evaluation.summarize`), for the callers that need the values of
    each query: comparisons, significance tests, the ``ragmeter`` command.

    Parameters
    ----------
    y_true, y_pred
        Judgments and rankings, as for :func:`ranking_metrics`.
    metrics
        Measure names (or one name) in any syntax :func:`~ragmeter.parse_measures` reads.
    options
        The evaluation's options.
    run_tag
        The run's tag (the 6th column of a TREC run), the value of ``runid``.
    columns
        The column names of table inputs.
    allow_empty
        Give no values, rather than an error, when there is no query to evaluate.

    Returns
    -------
    QueryValues
        One row per aligned query, one column per measure.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: an unknown measure, a measure named twice, no query to evaluate,
        judgments and rankings of different queries (``missing="raise"``), a ranking that
        repeats a document (``duplicates="raise"``).
    InputTypeError
        A ``TypeError``: judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> from ragmeter.options import EvaluationOptions
    >>> values = ranking_values(
    ...     {"q1": {"d1": 1}}, {"q1": ["d2", "d1"]}, "mrr", EvaluationOptions()
    ... )
    >>> values.queries.query_ids, values.numbers.tolist()  # d1 second: 1/2
    (['q1'], [[0.5]])
    """
    columns = columns or TableColumns()
    table_true, table_pred = is_table(y_true), is_table(y_pred)
    if table_true and table_pred:
        return table_values(
            y_true,
            y_pred,
            metrics,
            options,
            columns=columns,
            run_tag=run_tag,
            unjudged="raise",
            allow_empty=allow_empty,
        )
    if table_true and isinstance(y_pred, Mapping):
        y_true = read_table(y_true, "y_true", columns, "qrels", options.n_threads)
    elif table_pred and isinstance(y_true, Mapping):
        y_pred = read_table(y_pred, "y_pred", columns, "run", options.n_threads)
    measures = measures_of(metrics)
    all_judged = needs_all_judged(measures, options)
    ties = needs_ties(measures, options)
    paired = _prepared_in_order(y_true, y_pred, options, all_judged, ties)
    if paired is not None:
        queries, prepared = paired
        return compute_values(prepared, measures, queries, options, run_tag=run_tag)
    queries = align_queries(y_true, y_pred, missing=options.missing)
    if not queries.query_ids and not allow_empty:
        raise InvalidInputError(
            "y_true: there is no query to evaluate (no judged query"
            + (" with a ranking" if queries.missing_from_run else "")
            + "); pass at least one query's judgments and ranking"
        )
    prepared = _core.prepare_rankings(
        queries.query_ids,
        queries.judgments,
        queries.rankings,
        duplicates_first=options.duplicates == "first",
        max_docs=options.max_docs,
        all_judged=all_judged,
        ties=ties,
        n_threads=options.n_threads,
    )
    in_run = None
    if queries.missing_from_run and options.missing == "zero":
        absent = set(queries.missing_from_run)
        in_run = np.array([q not in absent for q in queries.query_ids], dtype=bool)
    return compute_values(prepared, measures, queries, options, in_run=in_run, run_tag=run_tag)


def _prepared_in_order(
    y_true: Any, y_pred: Any, options: EvaluationOptions, all_judged: bool, ties: bool
) -> tuple[AlignedQueries, _core.PreparedRankings] | None:
    """The commonest case, read without aligning the queries first: two dicts that list the
    same queries in the same order, paired by the core as it reads them (each pair of keys
    compared, as ``list(y_true) == list(y_pred)`` compares them). None when they do not, or
    when the core meets anything else (a value to convert, an error): then
    :func:`~ragmeter._inputs.align_queries` pairs the queries (and reports what is wrong)."""
    if not (type(y_true) is dict and type(y_pred) is dict and y_true):
        return None
    ids = list(y_true)
    try:
        prepared = _core.prepare_rankings_in_order(
            ids,
            y_true,
            y_pred,
            duplicates_first=options.duplicates == "first",
            max_docs=options.max_docs,
            all_judged=all_judged,
            ties=ties,
            n_threads=options.n_threads,
        )
    except RagmeterError:
        # The general path raises the first error in its order (unpaired queries first).
        return None
    if prepared is None:
        return None
    # As for files and tables, the judgments and rankings the core read are not carried over.
    queries = AlignedQueries(query_ids=ids, judgments=[], rankings=[], keyed=True)
    return queries, prepared


def read_table(
    table: Any, argument: str, columns: TableColumns, kind: str, n_threads: int | None
) -> dict[Any, dict[Any, Any]]:
    """A table as ``{query_id: {doc_id: value}}`` (grades for ``kind="qrels"``, scores for
    ``"run"``, ``-rank`` from a rank column), read by the Rust core.

    Parameters
    ----------
    table
        A table in long format: an object with ``__arrow_c_stream__`` (pyarrow, polars,
        DuckDB) or a pandas DataFrame.
    argument
        The argument's name, for errors (``"y_true"``).
    columns
        The names of the table's columns.
    kind
        ``"qrels"`` (a relevance column) or ``"run"`` (a score or rank column).
    n_threads
        Threads of the Rust pool (None: all).

    Returns
    -------
    dict
        ``{query_id: {doc_id: value}}``, ids of the table's type (str or int).

    Raises
    ------
    InvalidInputError
        A missing column, a null id or value, a value that is not a number.
    InputTypeError
        An object that is not a table, a column of a type ragmeter cannot read.

    Examples
    --------
    >>> import pyarrow as pa
    >>> run = pa.table({"query_id": [1, 1], "doc_id": [7, 9], "score": [0.5, 0.25]})
    >>> read_table(run, "y_pred", TableColumns(), "run", None)
    {1: {7: 0.5, 9: 0.25}}
    """
    source = arrow_source(table, argument, columns, kind)
    return _core.read_table_dict(
        source, columns.spec(argument, "", kind), kind, n_threads=n_threads
    )


def table_values(
    qrels: Any,
    run: Any,
    metrics: Iterable[str] | str,
    options: EvaluationOptions,
    *,
    columns: TableColumns,
    run_tag: str | None = None,
    unjudged: str = "raise",
    arguments: tuple[str, str] = ("y_true", "y_pred"),
    sources: tuple[str, str] = ("", ""),
    allow_empty: bool = False,
) -> QueryValues:
    """Per-query values of judgments and a run given as tables, imported by the Rust core
    from their Arrow buffers and evaluated in trec_eval's query order.

    Judged queries missing from the run follow ``options.missing``; run queries without
    judgments are an error with ``unjudged="raise"`` and ``options.missing="raise"`` (as for
    mappings), else ignored and listed in the result's ``unjudged`` (as for TREC files).
    ``arguments`` and ``sources`` name the tables in errors (``sources`` are paths or empty).
    With ``allow_empty``, no query to evaluate gives no values rather than an error.

    Parameters
    ----------
    qrels, run
        The judgments and the run, as tables in long format.
    metrics
        Measure names (or one name) in any syntax :func:`~ragmeter.parse_measures` reads.
    options
        The evaluation's options.
    columns
        The names of the tables' columns.
    run_tag
        The value of ``runid``.
    unjudged
        ``"raise"``: run queries without judgments are an error (as for mappings); else they
        are ignored and listed.
    arguments, sources
        The tables' argument names and paths, for errors.
    allow_empty
        Give no values, rather than an error, when there is no query to evaluate.

    Returns
    -------
    QueryValues
        One row per evaluated query (trec_eval's order), one column per measure.

    Raises
    ------
    InvalidInputError
        As :func:`ranking_values`, and a missing or null column.
    InputTypeError
        An object that is not a table, a column of a type ragmeter cannot read.

    Examples
    --------
    >>> import pyarrow as pa
    >>> qrels = pa.table({"query_id": ["q"], "doc_id": ["d2"], "relevance": [1]})
    >>> run = pa.table({"query_id": ["q", "q"], "doc_id": ["d1", "d2"], "rank": [1, 2]})
    >>> values = table_values(qrels, run, ["mrr"], EvaluationOptions(), columns=TableColumns())
    >>> values.queries.query_ids, values.numbers.tolist()
    (['q'], [[0.5]])
    """
    measures = measures_of(metrics)
    prepared, query_ids, in_run, run_only = _core.prepare_tables(
        arrow_source(qrels, arguments[0], columns, "qrels"),
        arrow_source(run, arguments[1], columns, "run"),
        columns.spec(arguments[0], sources[0], "qrels"),
        columns.spec(arguments[1], sources[1], "run"),
        duplicates_first=options.duplicates == "first",
        max_docs=options.max_docs,
        all_judged=needs_all_judged(measures, options),
        ties=needs_ties(measures, options),
        n_threads=options.n_threads,
    )
    missing_from_run = absent_queries(query_ids, in_run)
    where = [f"{a} ({s})" if s else a for a, s in zip(arguments, sources, strict=True)]
    if options.missing == "raise" and (missing_from_run or (run_only and unjudged == "raise")):
        parts = []
        if missing_from_run:
            parts.append(f"judged queries missing from {where[1]}: {preview_ids(missing_from_run)}")
        if run_only and unjudged == "raise":
            parts.append(
                f"{where[1]} queries without judgments in {where[0]}: {preview_ids(run_only)}"
            )
        raise InvalidInputError(
            f"{arguments[1]}: the judgments and the run do not hold the same queries; "
            + "; ".join(parts)
            + '. Pass missing="zero" (trec_eval -c) to score judged queries without a ranking '
            'as empty rankings, or missing="skip" to evaluate only the queries in both'
        )
    values = joined_values(
        prepared,
        measures,
        options,
        query_ids=query_ids,
        in_run=in_run,
        run_only=run_only,
        run_tag=run_tag,
    )
    if not values.queries.query_ids and not allow_empty:
        raise InvalidInputError(
            f"{arguments[0]}: there is no query to evaluate (no judged query"
            + (" with a ranking" if missing_from_run else "")
            + f" in {where[0]} and {where[1]})"
        )
    return values


def _single(
    metric: str,
    y_true: Any,
    y_pred: Any,
    *,
    relevance_threshold: float,
    zero_division: ZeroDivision,
    duplicates: Duplicates,
    missing: Missing,
    average: Average,
    n_threads: int | None,
) -> Any:
    results = ranking_metrics(
        y_true,
        y_pred,
        metrics=[metric],
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )
    return results[metric]


def _cutoff(k: object, *, allow_none: bool) -> str:
    checked = check_positive_int("k", k, allow_none=allow_none)
    return "" if checked is None else f"@{checked}"


def precision_at_k(
    y_true: Any,
    y_pred: Any,
    *,
    k: int = 10,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Precision at k: ``|relevant ∩ top k| / k`` (trec_eval ``P.k``).

    Divides by k even when fewer than k documents were ranked. Always defined.

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``
        (ordered by score, ties as trec_eval breaks them), or a sequence of those.
    k
        The depth: the top ``k`` documents of each ranking.
    relevance_threshold, zero_division, duplicates, missing, average, n_threads
        As for :func:`ranking_metrics`.

    Returns
    -------
    MeanScore or dict or numpy.ndarray
        The mean over queries, a float that carries ``n_queries``; with ``average=None`` the
        value of each query (a dict by query id for mappings, an array for sequences).

    Raises
    ------
    InvalidInputError
        A bad ``k`` or option, mappings with different queries (``missing="raise"``), nothing
        to evaluate.
    InputTypeError
        Judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> precision_at_k(qrels, runs, k=2)  # one relevant document in each top 2
    0.5
    >>> precision_at_k(qrels, runs, k=2, average=None)
    {'q1': 0.5, 'q2': 0.5}
    """
    return _single(
        f"precision{_cutoff(k, allow_none=False)}",
        y_true,
        y_pred,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )


def recall_at_k(
    y_true: Any,
    y_pred: Any,
    *,
    k: int = 10,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Recall at k: ``|relevant ∩ top k| / R`` (trec_eval ``recall.k``).

    Undefined when the query has no relevant judged document (R = 0).

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``
        (ordered by score, ties as trec_eval breaks them), or a sequence of those.
    k
        The depth: the top ``k`` documents of each ranking.
    relevance_threshold, zero_division, duplicates, missing, average, n_threads
        As for :func:`ranking_metrics`.

    Returns
    -------
    MeanScore or dict or numpy.ndarray
        The mean over queries, a float that carries ``n_queries``; with ``average=None`` the
        value of each query (a dict by query id for mappings, an array for sequences).

    Raises
    ------
    InvalidInputError
        A bad ``k`` or option, mappings with different queries (``missing="raise"``), nothing
        to evaluate.
    InputTypeError
        Judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> recall_at_k(qrels, runs, k=2)  # (1/2 + 1/1) / 2
    0.75
    >>> recall_at_k(qrels, runs, k=2).n_queries
    2
    """
    return _single(
        f"recall{_cutoff(k, allow_none=False)}",
        y_true,
        y_pred,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )


def hit_rate_at_k(
    y_true: Any,
    y_pred: Any,
    *,
    k: int = 10,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Hit rate at k: 1 if a relevant document is in the top k, else 0 (trec_eval ``success.k``).

    Always defined.

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``
        (ordered by score, ties as trec_eval breaks them), or a sequence of those.
    k
        The depth: the top ``k`` documents of each ranking.
    relevance_threshold, zero_division, duplicates, missing, average, n_threads
        As for :func:`ranking_metrics`.

    Returns
    -------
    MeanScore or dict or numpy.ndarray
        The mean over queries, a float that carries ``n_queries``; with ``average=None`` the
        value of each query (a dict by query id for mappings, an array for sequences).

    Raises
    ------
    InvalidInputError
        A bad ``k`` or option, mappings with different queries (``missing="raise"``), nothing
        to evaluate.
    InputTypeError
        Judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> hit_rate_at_k(qrels, runs, k=1)  # q1's first document is relevant, q2's is not
    0.5
    """
    return _single(
        f"hit_rate{_cutoff(k, allow_none=False)}",
        y_true,
        y_pred,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )


def mean_reciprocal_rank(
    y_true: Any,
    y_pred: Any,
    *,
    k: int | None = None,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Reciprocal rank: ``1 / rank`` of the first relevant document, 0 if none (trec_eval
    ``recip_rank``); with ``k``, only the top k count (trec_eval ``-M k`` then ``recip_rank``).

    Always defined.

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``
        (ordered by score, ties as trec_eval breaks them), or a sequence of those.
    k
        The depth: only the top ``k`` documents count; ``None``, the whole ranking.
    relevance_threshold, zero_division, duplicates, missing, average, n_threads
        As for :func:`ranking_metrics`.

    Returns
    -------
    MeanScore or dict or numpy.ndarray
        The mean over queries, a float that carries ``n_queries``; with ``average=None`` the
        value of each query (a dict by query id for mappings, an array for sequences).

    Raises
    ------
    InvalidInputError
        A bad ``k`` or option, mappings with different queries (``missing="raise"``), nothing
        to evaluate.
    InputTypeError
        Judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> mean_reciprocal_rank(qrels, runs)  # (1/1 + 1/2) / 2
    0.75
    >>> mean_reciprocal_rank(qrels, runs, k=1)  # q2's relevant document is below rank 1
    0.5
    """
    return _single(
        f"mrr{_cutoff(k, allow_none=True)}",
        y_true,
        y_pred,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )


def mean_average_precision(
    y_true: Any,
    y_pred: Any,
    *,
    k: int | None = None,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Average precision: the sum of precision at the rank of each retrieved relevant document
    (within the top k if given) divided by R (trec_eval ``map``, ``map_cut.k``).

    Relevant documents never retrieved contribute 0. Undefined when R = 0.

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``
        (ordered by score, ties as trec_eval breaks them), or a sequence of those.
    k
        The depth: only the top ``k`` documents count; ``None``, the whole ranking.
    relevance_threshold, zero_division, duplicates, missing, average, n_threads
        As for :func:`ranking_metrics`.

    Returns
    -------
    MeanScore or dict or numpy.ndarray
        The mean over queries, a float that carries ``n_queries``; with ``average=None`` the
        value of each query (a dict by query id for mappings, an array for sequences).

    Raises
    ------
    InvalidInputError
        A bad ``k`` or option, mappings with different queries (``missing="raise"``), nothing
        to evaluate.
    InputTypeError
        Judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> mean_average_precision(qrels, runs, average=None)  # q1: (1/1 + 2/3) / 2; q2: (1/2) / 1
    {'q1': 0.8333333333333333, 'q2': 0.5}
    """
    return _single(
        f"map{_cutoff(k, allow_none=True)}",
        y_true,
        y_pred,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )


def r_precision(
    y_true: Any,
    y_pred: Any,
    *,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """R-precision: precision at R, ``|relevant ∩ top R| / R`` (trec_eval ``Rprec``).

    Undefined when R = 0.

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``
        (ordered by score, ties as trec_eval breaks them), or a sequence of those.
    relevance_threshold, zero_division, duplicates, missing, average, n_threads
        As for :func:`ranking_metrics`.

    Returns
    -------
    MeanScore or dict or numpy.ndarray
        The mean over queries, a float that carries ``n_queries``; with ``average=None`` the
        value of each query (a dict by query id for mappings, an array for sequences).

    Raises
    ------
    InvalidInputError
        A bad ``k`` or option, mappings with different queries (``missing="raise"``), nothing
        to evaluate.
    InputTypeError
        Judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> r_precision(qrels, runs)  # q1: 1 of its top 2; q2: 0 of its top 1
    0.25
    """
    return _single(
        "r_precision",
        y_true,
        y_pred,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )


def ndcg_at_k(
    y_true: Any,
    y_pred: Any,
    *,
    k: int | None = 10,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Duplicates = "raise",
    missing: Missing = "raise",
    average: Average = "mean",
    n_threads: int | None = None,
) -> Any:
    """Normalised discounted cumulative gain at k (trec_eval ``ndcg_cut.k``; ``ndcg`` for
    ``k=None``).

    ``DCG@k = sum over ranks i <= k of grade_i / log2(i + 1)`` with the grade as a linear gain
    (grades <= 0 add nothing); ``IDCG@k`` is the DCG of all judged positive grades sorted in
    decreasing order, cut at k (for ``k=None``, not cut). The gains ignore
    ``relevance_threshold``. Undefined when IDCG = 0 (no positive grade).

    Parameters
    ----------
    y_true
        Judgments: ``{query_id: {doc_id: grade}}`` or ``{query_id: [relevant doc ids]}``, or a
        sequence of those aligned by position with ``y_pred``.
    y_pred
        Rankings: ``{query_id: [doc ids, best first]}`` or ``{query_id: {doc_id: score}}``
        (ordered by score, ties as trec_eval breaks them), or a sequence of those.
    k
        The depth: only the top ``k`` documents count; ``None``, the whole ranking.
    relevance_threshold, zero_division, duplicates, missing, average, n_threads
        As for :func:`ranking_metrics`.

    Returns
    -------
    MeanScore or dict or numpy.ndarray
        The mean over queries, a float that carries ``n_queries``; with ``average=None`` the
        value of each query (a dict by query id for mappings, an array for sequences).

    Raises
    ------
    InvalidInputError
        A bad ``k`` or option, mappings with different queries (``missing="raise"``), nothing
        to evaluate.
    InputTypeError
        Judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 2, "d4": 1}, "q2": ["d3"]}
    >>> runs = {"q1": ["d4", "d2", "d1"], "q2": ["d5", "d3"]}
    >>> round(ndcg_at_k(qrels, runs, k=3), 4)  # q1: 2 / (2 + 1/log2(3)); q2: 1/log2(3)
    0.6956
    """
    return _single(
        f"ndcg{_cutoff(k, allow_none=True)}",
        y_true,
        y_pred,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        missing=missing,
        average=average,
        n_threads=n_threads,
    )
