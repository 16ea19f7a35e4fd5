"""Judgments and runs stored as JSON objects, for the ``ragmeter`` command.

A file whose name ends in ``.json`` holds ``{query_id: {doc_id: grade}}`` (qrels) or
``{query_id: {doc_id: score}}`` (a run), the layout pytrec_eval and ranx read; judgments may
also list relevant ids (``{query_id: [doc_id, ...]}``). Such files are evaluated as by
:func:`ragmeter.ranking_metrics`, with the same semantics as TREC files (scores descending, ties
by doc id byte-wise descending).

Refused with an :class:`~ragmeter.InvalidInputError` naming the file (and the query and
document where there is one): a key repeated inside one object (Python's ``json`` would keep
the last value silently), ``true``/``false`` as a grade, score or id (Python reads them as
1/0), an id holding a control character (a query id ``"\\n1\\tall"`` would print a line
that looks like the mean row of ``--format trec``), a number too long to read, input nested
too deeply to parse, malformed JSON, text that is not UTF-8, and anything that is not a
regular file (a FIFO, ``/dev/zero``).
"""

from __future__ import annotations

import json
import os
import sys
import unicodedata
from pathlib import Path
from typing import Any

from .._files import read_regular_text
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


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_id(path: str, what: str, value: Any, where: str = "") -> None:
    if isinstance(value, bool):
        raise InvalidInputError(f"{path}: {where}a {what} is {json.dumps(value)}; ids are strings")
    if isinstance(value, str) and any(unicodedata.category(c) == "Cc" for c in value):
        raise InvalidInputError(
            f"{path}: {where}the {what} {_shown(value)} holds a control character (a tab, a "
            "line break, ...), which would break the lines of the output; rename it"
        )


def _check_entries(path: str, data: dict[str, Any], value_name: str) -> None:
    """Ids and values that ``ranking_metrics`` would read differently from what they say."""
    for query, entries in data.items():
        _check_id(path, "query id", query)
        where = f"query {_shown(query)}: "
        if isinstance(entries, dict):
            for doc, value in entries.items():
                _check_id(path, "document id", doc, where)
                if isinstance(value, bool):
                    raise InvalidInputError(
                        f"{path}: {where}the {value_name} of document {_shown(doc)} is "
                        f"{json.dumps(value)}, not a number; write 1 or 0"
                    )
        elif isinstance(entries, list):
            for doc in entries:
                _check_id(path, "document id", doc, where)


def read_json(path: str | os.PathLike[str], what: str) -> dict[str, Any]:
    """A ``{query_id: ...}`` object from a JSON file; ``what`` (``"qrels"`` or ``"run"``) names
    it in errors."""
    name = os.fspath(path)
    text = read_regular_text(path, f"a JSON {what} file")
    try:
        data = json.loads(text, object_pairs_hook=lambda pairs: _unique_keys(name, pairs))
    except InvalidInputError:
        raise
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{name}: not valid JSON ({exc})") from None
    except RecursionError:
        raise InvalidInputError(
            f"{name}: nested too deeply; a JSON {what} file holds {{query_id: {{doc_id: value}}}}"
        ) from None
    except ValueError:
        # Python's limit on the digits of an int (4300 by default): no grade or score is
        # that long.
        raise InvalidInputError(
            f"{name}: holds a number of more than {sys.get_int_max_str_digits()} digits, too "
            f"long to be a {what} value"
        ) from None
    if not isinstance(data, dict):
        raise InvalidInputError(
            f"{name}: a JSON {what} file holds one object {{query_id: {{doc_id: value}}}}, "
            f"got a {type(data).__name__}"
        )
    _check_entries(name, data, "grade" if what == "qrels" else "score")
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
