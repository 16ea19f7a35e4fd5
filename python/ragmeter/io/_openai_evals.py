"""OpenAI Evals record logs: the JSON lines ``oaieval`` writes (``--record_path``, by
``evals/record.py``'s ``LocalRecorder``): a ``{"spec": ...}`` line (``completion_fns``,
``eval_name``, ``run_id``, ...), one line per event (``run_id``, ``event_id``, ``sample_id``,
``type``, ``data``, ``created_by``, ``created_at``) and a ``{"final_report": ...}`` line.

What is read: ``match`` events give metric ``correct`` (``data.correct`` as 1 or 0),
``metrics`` events every number of their ``data``; other events (``sampling``, ...) hold no
score. The item is the event's ``sample_id``; several scoring events of one sample and metric
(``n_samples`` > 1) are its repeats, in the order of their ``event_id``. The system is the
spec's ``completion_fns``; each metric's definition is the eval's name, so logs of different
evals are refused as incomparable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..exceptions import InvalidInputError
from ._harness_rows import HarnessRows, score_number
from ._records import Records

__all__ = ["harness_records", "recognises"]


def recognises(data: Any) -> bool:
    """Whether parsed JSON lines are an OpenAI Evals record log."""
    return (
        isinstance(data, list)
        and bool(data)
        and any(isinstance(row, Mapping) and isinstance(row.get("spec"), Mapping) for row in data)
        and any(isinstance(row, Mapping) and "sample_id" in row and "type" in row for row in data)
    )


def harness_records(data: Any, where: str, cluster: str | None = None) -> Records:
    """The long rows of an OpenAI Evals log (see the module documentation)."""
    if cluster is not None:
        raise InvalidInputError(f"{where}: an OpenAI Evals log records no cluster of a sample")
    spec = next(row["spec"] for row in data if isinstance(row.get("spec"), Mapping))
    fns = spec.get("completion_fns") or []
    system = ",".join(map(str, fns)) if isinstance(fns, list) else str(fns)
    eval_name = spec.get("eval_name")
    built = HarnessRows(where, "openai-evals")
    events = [
        (line, row)
        for line, row in enumerate(data, start=1)
        if "sample_id" in row and row.get("type") in ("match", "metrics")
    ]
    events.sort(key=lambda pair: (pair[1].get("event_id", 0), pair[0]))
    seen: dict[tuple[Any, str], int] = {}
    for line, row in events:
        here = f"{where}:{line}"
        data_ = row.get("data") or {}
        if row["type"] == "match":
            values = {"correct": data_.get("correct")}
        else:
            values = {k: v for k, v in data_.items() if isinstance(v, int | float | bool)}
        for metric, value in values.items():
            key = (row["sample_id"], metric)
            repeat = seen.get(key, 0)
            seen[key] = repeat + 1
            built.define(metric, {"eval": eval_name, "event": row["type"]})
            built.add(
                row["sample_id"],
                metric,
                score_number(value, here, metric),
                here,
                system=system,
                repeat=repeat,
            )
    return built.records()
