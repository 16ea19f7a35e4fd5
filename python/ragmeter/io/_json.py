"""Judgments and runs stored as JSON objects, for the ``ragmeter`` command.

A file whose name ends in ``.json`` holds ``{query_id: {doc_id: grade}}`` (qrels) or
``{query_id: {doc_id: score}}`` (a run), the layout pytrec_eval and ranx read; judgments may
also list relevant ids (``{query_id: [doc_id, ...]}``). Such files are evaluated as by
:func:`ragmeter.ranking_metrics`, with the same semantics as TREC files (scores descending, ties
by doc id byte-wise descending). A key repeated inside one object is an error: Python's ``json``
would keep the last value silently.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..exceptions import InvalidInputError
from ..ranking.evaluation import summarize
from ..ranking.functions import ranking_values
from ..ranking.results import MetricResults
from .trec import read_trec_qrels, read_trec_run, trec_options

__all__ = ["evaluate_files", "is_json_path"]


def is_json_path(path: str | os.PathLike[str]) -> bool:
    return Path(path).suffix.lower() == ".json"


def _unique_keys(path: str, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise InvalidInputError(f"{path}: key {key!r} appears twice in one object")
        result[key] = value
    return result


def read_json(path: str | os.PathLike[str], what: str) -> dict[str, Any]:
    """A ``{query_id: ...}`` object from a JSON file; ``what`` names it in errors."""
    name = os.fspath(path)
    with open(path, encoding="utf-8") as file:
        try:
            data = json.load(file, object_pairs_hook=lambda pairs: _unique_keys(name, pairs))
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"{name}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InvalidInputError(
            f"{name}: a JSON {what} file holds one object {{query_id: {{doc_id: value}}}}, "
            f"got a {type(data).__name__}"
        )
    return data


def evaluate_files(
    qrels_path: str,
    run_path: str,
    *,
    per_query: bool,
    metrics: list[str],
    complete: bool = False,
    missing: str | None = None,
    **options: Any,
) -> tuple[MetricResults, MetricResults | None]:
    """Means (and per-query values when ``per_query``) of a run, either file TREC or JSON.

    ``options`` are those of :func:`ragmeter.evaluate_trec`. A JSON run has no run tag: its
    ``runid`` is the file's name without the suffix.
    """
    evaluation = trec_options(complete=complete, missing=missing, **options)
    qrels = (
        read_json(qrels_path, "qrels")
        if is_json_path(qrels_path)
        else read_trec_qrels(qrels_path, n_threads=evaluation.n_threads)
    )
    run = (
        read_json(run_path, "run")
        if is_json_path(run_path)
        else read_trec_run(run_path, n_threads=evaluation.n_threads)
    )
    # As for TREC files (and trec_eval): run topics without judgments are ignored, and listed.
    unjudged = [query for query in run if query not in qrels]
    run = {query: ranking for query, ranking in run.items() if query in qrels}
    # One evaluation, summarised once or twice (as trec_means_and_per_query does).
    values = ranking_values(qrels, run, metrics, evaluation, run_tag=Path(run_path).stem)
    means = summarize(values, average="mean")
    means.unjudged = unjudged
    if not per_query:
        return means, None
    per_query_values = summarize(values, average=None)
    per_query_values.unjudged = unjudged
    return means, per_query_values
