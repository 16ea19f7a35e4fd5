"""Langfuse exports of observations (the row ``langfuse`` of :data:`ragmeter.io.FORMATS`).

Read: the public API's page of observations (``{"data": [observation, ...], "meta": ...}``), a
trace with its observations (``{"id": ..., "observations": [...]}``), a JSON list of either, or
JSON lines of either (Langfuse's export of a table). An observation (``id``, ``traceId``,
``parentObservationId``, ``type``: ``SPAN``, ``GENERATION``, ``EVENT``, ``RETRIEVER``, ...,
``name``, ``input``, ``output``, ``metadata``) becomes a span row (:mod:`ragmeter.io._spans`)
whose attributes are ``langfuse.type``, ``input``, ``output`` and ``metadata`` as exported.
Refused, naming the file and item: text that is not JSON, an observation without ``id`` or
``traceId``.

Source of the fields: Langfuse's public API reference (``GET /api/public/observations``,
``GET /api/public/traces/{traceId}``), observation types as of Langfuse 3.
"""

from __future__ import annotations

from typing import Any

from .._files import read_regular_text
from ..exceptions import InvalidInputError
from ._json import parse_json_text, preview
from ._records import Records
from ._spans import span_row

__all__ = ["read_records"]


def _observations(item: Any, where: str, inside: str = "") -> list[tuple[dict[str, Any], str]]:
    """The observations of ``item`` (at ``where``, the file or its line; ``inside``: the path
    within its JSON, ``data[3]``), each with its place."""
    place = f"{where}: {inside}" if inside else where
    if isinstance(item, list):
        found = []
        for i, inner in enumerate(item):
            found += _observations(inner, where, f"{inside}[{i}]")
        return found
    if not isinstance(item, dict):
        raise InvalidInputError(f"{place}: expected Langfuse observations, got {preview(item)}")
    for key in ("data", "observations"):
        if isinstance(item.get(key), list):
            return _observations(item[key], where, f"{inside}.{key}" if inside else key)
    return [(item, place)]


def _row(observation: dict[str, Any], where: str) -> dict[str, Any]:
    if not observation.get("id") or not observation.get("traceId"):
        raise InvalidInputError(f"{where}: a Langfuse observation needs an id and a traceId")
    for key in ("id", "traceId", "parentObservationId"):
        value = observation.get(key)
        if value is not None and (not isinstance(value, str | int) or isinstance(value, bool)):
            raise InvalidInputError(
                f"{where}: a Langfuse observation's {key} is {preview(value)}, not text"
            )
    attributes = {
        "langfuse.type": observation.get("type"),
        "input": observation.get("input"),
        "output": observation.get("output"),
        "metadata": observation.get("metadata"),
    }
    return span_row(
        str(observation["traceId"]),
        str(observation["id"]),
        observation.get("parentObservationId"),
        observation.get("name"),
        observation.get("type"),
        {k: v for k, v in attributes.items() if v is not None},
    )


def read_records(
    path: str, *, what: str, argument: str, noun: str = "observation", caller: str = ""
) -> Records:
    """The observations of a Langfuse export, one span row each."""
    text = read_regular_text(path, what, argument).removeprefix("\ufeff")
    stripped = text.strip()
    items: list[tuple[Any, str]] = []
    if stripped.startswith("[") or (stripped.startswith("{") and "\n{" not in stripped):
        items.append((parse_json_text(stripped, path, "the file"), path))
    else:
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                location = f"{path}:{number}"
                items.append((parse_json_text(line, location, "the line"), location))
    rows, where = [], []
    for item, location in items:
        for observation, place in _observations(item, location):
            rows.append(_row(observation, place))
            where.append(place)
    return Records(rows, where, table=False, text=False)
