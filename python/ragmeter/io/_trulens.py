"""TruLens records and feedback: the table ``TruSession().get_records_and_feedback()`` returns,
saved as JSON records (``df.to_json(path, orient="records")``, or JSON lines with
``lines=True``). Its columns (``trulens/core/database/sqlalchemy.py``): the app's
(``app_id``, ``app_name``, ``app_version``, ``app_json``, ``type``), the record's
(``record_id``, ``input``, ``output``, ``tags``, ``record_json``, ``cost_json``,
``perf_json``, ``ts``), ``latency``, ``total_tokens``, ``total_cost``, and per feedback
function its mean result (``<name>``) and its calls (``<name>_calls``).

What is read: each feedback column is a metric (a feedback without a result is null:
undefined). The item is the record's ``input`` (the same question asked of every app); several
records of one input in one app are its repeats. The system is ``app_name`` and
``app_version`` (``app_id`` in older versions): a file of several apps holds several
systems. With ``cluster=``, that column. TruLens records no feedback definition in this table:
each metric's definition is its name.
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

#: The columns of the table that are not feedback results.
_OWN = frozenset(
    (
        "app_id",
        "app_name",
        "app_version",
        "app_json",
        "type",
        "record_id",
        "input",
        "output",
        "tags",
        "record_json",
        "cost_json",
        "perf_json",
        "ts",
        "latency",
        "total_tokens",
        "total_cost",
        "cost_currency",
        "num_events",
    )
)


def recognises(data: Any) -> bool:
    """Whether parsed JSON is TruLens' records and feedback."""
    return (
        isinstance(data, list)
        and bool(data)
        and all(
            isinstance(row, Mapping)
            and "record_id" in row
            and "input" in row
            and ("app_id" in row or "app_name" in row)
            for row in data
        )
    )


def _system(row: Mapping[str, Any]) -> str:
    if row.get("app_name") is not None:
        version = row.get("app_version")
        return f"{row['app_name']} {version}" if version not in (None, "") else str(row["app_name"])
    return str(row.get("app_id"))


def harness_records(data: Any, where: str, cluster: str | None = None) -> Records:
    """The long rows of TruLens' records and feedback (see the module documentation)."""
    built = HarnessRows(where, "trulens")
    feedback = [
        c
        for c in dict.fromkeys(k for row in data for k in row)
        if c not in _OWN and not c.endswith("_calls") and c != cluster
    ]
    if not feedback:
        raise InvalidInputError(f"{where}: the TruLens records hold no feedback column")
    seen: dict[tuple[str, Any, str], int] = {}
    for row in data:
        here = f"{where}: record {row.get('record_id')!r}"
        item = row["input"] if isinstance(row["input"], str) else json.dumps(row["input"])
        system = _system(row)
        group = None
        if cluster is not None:
            group = row.get(cluster)
            if group is None:
                raise InvalidInputError(f"{here}: has no {cluster!r} (cluster=)")
        for metric in feedback:
            value = row.get(metric)
            number = math.nan if value is None else score_number(value, here, metric)
            key = (system, item, metric)
            repeat = seen.get(key, 0)
            seen[key] = repeat + 1
            built.define(metric, {"feedback": metric})
            built.add(item, metric, number, here, system=system, repeat=repeat, cluster=group)
    return built.records()
