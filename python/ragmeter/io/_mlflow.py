"""MLflow evaluation results: the results table ``mlflow.evaluate`` logs
(``eval_results_table.json``, written by ``mlflow.log_table`` as pandas' ``split`` form:
``{"columns": [...], "data": [[...], ...]}``), and traces with their assessments
(``mlflow.search_traces(return_type="list")``, each ``Trace.to_dict()`` saved as a JSON list
or JSON lines: ``{"info": {trace_id, client_request_id, request_preview, trace_metadata,
assessments}, "data": ...}``).

The results table: each row is an item, named by its ``id`` or ``request_id`` column, else its
``inputs`` (or ``request``) cell; each ``<metric>/score`` column is a value of ``<metric>``; the
table records no system (named by the caller or the file). With ``cluster=``, that column.

Traces: each trace is an item (its ``client_request_id``, else its ``request_preview``), of the
run in ``trace_metadata["mlflow.sourceRun"]`` (the system; a file of several runs holds
several systems); each assessment with a ``feedback`` is a value of ``assessment_name``
(``valid: false``, an overridden assessment, is left out; a feedback with an ``error`` is
failed); several traces of one item in one run are its repeats. Each metric's definition is
its assessment's source (``source_type`` and ``source_id``: the judge), so values judged by
different judges are refused as incomparable.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from ..exceptions import InvalidInputError
from ._harness_rows import HarnessRows, score_number
from ._records import Records

__all__ = ["harness_records", "recognises"]


def _is_trace(row: Any) -> bool:
    return (
        isinstance(row, Mapping)
        and isinstance(row.get("info"), Mapping)
        and ("trace_id" in row["info"] or "request_id" in row["info"])
    )


def recognises(data: Any) -> bool:
    """Whether parsed JSON is an MLflow results table or a list of traces."""
    if isinstance(data, Mapping):
        columns = data.get("columns")
        return (
            isinstance(columns, list)
            and isinstance(data.get("data"), list)
            and any(isinstance(c, str) and c.endswith("/score") for c in columns)
        )
    return isinstance(data, list) and bool(data) and all(_is_trace(row) for row in data)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _table(data: Mapping[str, Any], where: str, cluster: str | None) -> Records:
    columns = data["columns"]
    built = HarnessRows(where, "mlflow")
    key = next((c for c in ("id", "request_id", "inputs", "request") if c in columns), None)
    if cluster is not None and cluster not in columns:
        raise InvalidInputError(f"{where}: has no column {cluster!r} (cluster=)")
    metrics = [c for c in columns if isinstance(c, str) and c.endswith("/score")]
    for position, cells in enumerate(data["data"]):
        here = f"{where}: row {position}"
        if not isinstance(cells, list) or len(cells) != len(columns):
            raise InvalidInputError(f"{here}: has {len(cells)} cells for {len(columns)} columns")
        row = dict(zip(columns, cells, strict=True))
        item = position if key is None else row[key]
        item = item if isinstance(item, int) and not isinstance(item, bool) else _text(item)
        for column in metrics:
            metric = column[: -len("/score")]
            built.define(metric, {"column": column})
            built.add(
                item,
                metric,
                score_number(row[column], here, column),
                here,
                cluster=None if cluster is None else _text(row[cluster]),
            )
    return built.records()


def _traces(data: list[Any], where: str, cluster: str | None) -> Records:
    built = HarnessRows(where, "mlflow")
    seen: dict[tuple[Any, Any, str], int] = {}
    for trace in data:
        info = trace["info"]
        here = f"{where}: trace {info.get('trace_id', info.get('request_id'))!r}"
        item = info.get("client_request_id") or info.get("request_preview")
        if item is None:
            raise InvalidInputError(f"{here}: has neither client_request_id nor request_preview")
        metadata = info.get("trace_metadata") or info.get("request_metadata") or {}
        system = metadata.get("mlflow.sourceRun")
        group = None
        if cluster is not None:
            group = metadata.get(cluster, (info.get("tags") or {}).get(cluster))
            if group is None:
                raise InvalidInputError(f"{here}: no {cluster!r} in its metadata or tags")
        for assessment in info.get("assessments") or []:
            feedback = assessment.get("feedback")
            if not isinstance(feedback, Mapping) or assessment.get("valid") is False:
                continue
            metric = assessment.get("assessment_name") or assessment.get("name")
            source = assessment.get("source") or {}
            built.define(
                metric,
                {"source_type": source.get("source_type"), "source_id": source.get("source_id")},
            )
            failed = feedback.get("error") is not None
            value = math.nan if failed else score_number(feedback.get("value"), here, metric)
            count = (system, item, metric)
            repeat = seen.get(count, 0)
            seen[count] = repeat + 1
            built.add(
                item,
                metric,
                value,
                here,
                system=system,
                repeat=repeat,
                cluster=group,
                failed=failed,
            )
    return built.records()


def harness_records(data: Any, where: str, cluster: str | None = None) -> Records:
    """The long rows of an MLflow results table or traces (see the module documentation)."""
    if isinstance(data, Mapping):
        return _table(data, where, cluster)
    return _traces(data, where, cluster)
