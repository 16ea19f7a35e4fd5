"""TREC run and qrels files, parsed and evaluated in the Rust core.

A qrels line is ``query_id iteration doc_id grade``; a run line is
``query_id Q0 doc_id rank score run_tag``. Fields are separated by white space, a line whose
first non-blank character is ``#`` is a comment (a ``#`` inside an id belongs to the id), and
the rank column is ignored: documents are ordered by score, ties by doc id byte-wise
descending, as trec_eval orders them. A document listed twice for one query is an error
(trec_eval's "duplicate docs"), with the file name and line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any, Literal

import numpy as np

from .. import _core
from .._inputs import AlignedQueries, check_choice
from ..ranking import (
    Average,
    MetricResults,
    ZeroDivision,
    _check_common,
    _specs,
    summarize,
)
from ._trec_writer import write_trec_run

__all__ = [
    "TREC_DEFAULT_METRICS",
    "evaluate_trec",
    "read_trec_qrels",
    "read_trec_run",
    "trec_means_and_per_query",
    "write_trec_run",
]

#: The measures trec_eval's test suite checks, in ragmeter's names.
TREC_DEFAULT_METRICS = (
    "map",
    "precision@5",
    "precision@10",
    "mrr",
    "r_precision",
    "recall@100",
    "ndcg",
    "ndcg@10",
    "hit_rate@1",
    "hit_rate@5",
    "hit_rate@10",
)

PathLike = str | os.PathLike[str]


def read_trec_qrels(
    path: PathLike, *, n_threads: int | None = None
) -> dict[str, dict[str, int | float]]:
    """Read a qrels file into ``{query_id: {doc_id: grade}}`` (ints when written as integers).

    Raises :class:`~ragmeter.TrecFormatError` (a ``ValueError``) with ``path:line`` for a
    malformed line or a document judged twice for one query.
    """
    return _core.read_trec(os.fspath(path), "qrels", n_threads=n_threads)


def read_trec_run(path: PathLike, *, n_threads: int | None = None) -> dict[str, dict[str, float]]:
    """Read a run file into ``{query_id: {doc_id: score}}``, ready for the ranking metrics.

    The rank column is ignored (the metrics order by score, as trec_eval does). Raises
    :class:`~ragmeter.TrecFormatError` with ``path:line`` for a malformed line or a document
    listed twice for one query.
    """
    return _core.read_trec(os.fspath(path), "run", n_threads=n_threads)


def evaluate_trec(
    qrels_path: PathLike,
    run_path: PathLike,
    *,
    metrics: Iterable[str] | str = TREC_DEFAULT_METRICS,
    per_query: bool = False,
    complete: bool = False,
    max_docs: int | None = None,
    missing: Literal["raise", "zero", "skip"] | None = None,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Literal["raise", "first"] = "raise",
    n_threads: int | None = None,
) -> MetricResults:
    """Evaluate a TREC run file against a qrels file, entirely in the Rust core.

    Parsing, ordering and scoring never create a Python object per line. As in trec_eval 10,
    the judged topics are evaluated and run topics without judgments are ignored (their ids
    are in the result's ``unjudged`` attribute).

    Parameters
    ----------
    metrics
        ragmeter or trec_eval names (``"ndcg@10"`` or ``"ndcg_cut_10"``, ``"P_5"``, ...).
    per_query
        False: ``{metric: MeanScore}``. True: ``{metric: {query_id: value}}``.
    complete
        trec_eval ``-c``: a judged topic missing from the run is scored as an empty ranking and
        counted in the mean (the same as ``missing="zero"``).
    max_docs
        trec_eval ``-M``: keep the first ``max_docs`` documents of each ranking after ordering.
    missing
        What to do with judged topics missing from the run when ``complete`` is False:
        ``"raise"`` (the default; trec_eval 10 stops too), ``"zero"`` or ``"skip"`` (average
        over the topics the run has, as trec_eval 9 did).
    relevance_threshold, zero_division, duplicates, n_threads
        As in :func:`~ragmeter.ranking_metrics`.
    """
    policy = _missing_policy(complete, missing)
    average: Average = None if per_query else "mean"
    values, specs, queries, zero = _trec_values(
        qrels_path,
        run_path,
        metrics=metrics,
        max_docs=max_docs,
        missing=policy,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        n_threads=n_threads,
    )
    return summarize(values, specs, queries, zero_division=zero, average=average)


def trec_means_and_per_query(
    qrels_path: PathLike, run_path: PathLike, **options: Any
) -> tuple[MetricResults, MetricResults]:
    """Means and per-query values from one parse of the files (the command's ``-q``).

    ``options`` are those of :func:`evaluate_trec` but ``per_query``.
    """
    complete = options.pop("complete", False)
    options["missing"] = _missing_policy(complete, options.get("missing"))
    values, specs, queries, zero = _trec_values(qrels_path, run_path, **options)
    means = summarize(values, specs, queries, zero_division=zero, average="mean")
    per_query = summarize(values, specs, queries, zero_division=zero, average=None)
    return means, per_query


def _missing_policy(complete: bool, missing: str | None) -> str:
    if missing is None:
        return "zero" if complete else "raise"
    check_choice("missing", missing, ("raise", "zero", "skip"))
    if complete and missing != "zero":
        raise ValueError(f"complete=True means missing='zero'; got missing={missing!r} as well")
    return missing


def _trec_values(
    qrels_path: PathLike,
    run_path: PathLike,
    *,
    metrics: Iterable[str] | str = TREC_DEFAULT_METRICS,
    max_docs: int | None = None,
    missing: str = "raise",
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: str = "raise",
    n_threads: int | None = None,
) -> tuple[np.ndarray, list[Any], AlignedQueries, str | float]:
    """Per-query values (NaN where undefined) of the judged topics, before ``zero_division``."""
    specs = _specs(metrics)
    threshold, zero = _check_common(
        relevance_threshold, zero_division, duplicates, "mean", max_docs, n_threads
    )
    prepared, query_ids, in_run, run_only = _core.prepare_trec(
        os.fspath(qrels_path),
        os.fspath(run_path),
        duplicates_first=duplicates == "first",
        max_docs=max_docs,
        n_threads=n_threads,
    )
    in_run_mask = np.asarray(in_run, dtype=bool)
    missing_from_run = [q for q, present in zip(query_ids, in_run, strict=True) if not present]
    if missing_from_run and missing == "raise":
        shown = ", ".join(repr(q) for q in missing_from_run[:5])
        more = f", ... ({len(missing_from_run)} in all)" if len(missing_from_run) > 5 else ""
        raise ValueError(
            f"judged topics missing from the run {os.fspath(run_path)!r}: {shown}{more}. Pass "
            f"complete=True (ragmeter evaluate -c) to score them as empty rankings (trec_eval "
            f"-c), or missing='skip' to average over the topics the run has"
        )
    values = prepared.evaluate([(s.kind, s.k) for s in specs], threshold, n_threads)
    if missing == "skip":
        values = values[in_run_mask]
        query_ids = [q for q, present in zip(query_ids, in_run, strict=True) if present]
    queries = AlignedQueries(
        query_ids=query_ids,
        judgments=[],
        rankings=[],
        keyed=True,
        missing_from_run=missing_from_run,
        unjudged=run_only,
    )
    return values, specs, queries, zero
