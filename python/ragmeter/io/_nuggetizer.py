"""Nugget files in nuggetizer's form (the row ``nuggetizer`` of :data:`ragmeter.io.FORMATS`):
JSON lines, one topic or one assessed answer a line.

* a bank (``nuggetizer create``, NIST's nuggets in that form, ``NuggetBank.write_nuggets``):
  ``{"qid", "query", "nuggets": [{"text", "importance"}]}``;
* assignments (``nuggetizer assign``): the same with each nugget's ``"assignment"`` and the
  answer's ``"run_id"``, ``"answer_text"``.

``qid`` may be called ``topic_id``; ``query`` may be nuggetizer's ``{"qid", "text"}`` object or
a string (the rows read give ``qid`` and ``query`` as text); a nugget may be a bare string (no
importance). Each line is refused, naming the file
and line, unless it is one JSON object with an id and a list of nuggets, each with a ``text``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._files import read_regular_text
from ..exceptions import InvalidInputError
from ._json import parse_json_text, preview
from ._records import Records

__all__ = ["read_records", "topic_of"]


def topic_of(row: Mapping[str, Any]) -> tuple[str, str]:
    """The topic id and query text of a row (see the module documentation).

    Raises
    ------
    InvalidInputError
        No ``qid``/``topic_id``, or a query that is neither text nor ``{"text"}``.
    """
    query = row.get("query", "")
    topic = row.get("qid", row.get("topic_id"))
    if isinstance(query, Mapping):
        topic = query.get("qid", topic)
        query = query.get("text", "")
    if topic is None or isinstance(topic, bool) or not isinstance(topic, str | int):
        raise InvalidInputError("qid: missing (the topic's id: 'qid' or 'topic_id')")
    if not isinstance(query, str):
        raise InvalidInputError(f"query: expected text, got {preview(query)}")
    return str(topic), query


def read_records(
    path: str, *, what: str, argument: str, noun: str = "topic", caller: str = ""
) -> Records:
    """The rows of a nuggets or assignments file, each checked and located by its line."""
    text = read_regular_text(path, what, argument).removeprefix("\ufeff")
    rows: list[dict[str, Any]] = []
    where: list[str] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        location = f"{path}:{number}"
        row = parse_json_text(line, location, "the line")
        if not isinstance(row, dict):
            raise InvalidInputError(
                f"{location}: each line must be one JSON object (a {noun}), got "
                f"{type(row).__name__} {preview(row)}"
            )
        try:
            topic, query = topic_of(row)
        except InvalidInputError as exc:
            raise InvalidInputError(f"{location}: {exc}") from None
        row = {**row, "qid": topic, "query": query}
        row.pop("topic_id", None)
        nuggets = row.get("nuggets")
        if not isinstance(nuggets, list):
            raise InvalidInputError(f"{location}: nuggets: missing or not a list")
        for i, nugget in enumerate(nuggets):
            if not isinstance(nugget, str) and not (
                isinstance(nugget, Mapping) and isinstance(nugget.get("text"), str)
            ):
                raise InvalidInputError(
                    f"{location}: nuggets[{i}]: expected a string or {{text, importance}}, got "
                    f"{preview(nugget)}"
                )
        rows.append(row)
        where.append(location)
    return Records(rows, where, table=False, text=False)
