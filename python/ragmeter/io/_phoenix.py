"""Phoenix's spans as a table (the row ``phoenix`` of :data:`ragmeter.io.FORMATS`): what
``px.Client().get_spans_dataframe()`` gives, saved as JSON lines, a JSON list or Parquet.

Columns read: ``context.trace_id``, ``context.span_id``, ``parent_id``, ``name``,
``span_kind``, and every ``attributes.<key>`` column (OpenInference's attributes, e.g.
``attributes.input.value``, ``attributes.retrieval.documents``: a list of
``{"document.id", "document.score", "document.content"}``). Each row becomes a span row
(:mod:`ragmeter.io._spans`) with the ``attributes.`` prefix taken off. The file's own format is
read by the records reader of its suffix (``.jsonl``, ``.json``, ``.parquet``). Refused, naming
the row: a row without ``context.trace_id`` or ``context.span_id``.

Source of the columns: Phoenix's spans dataframe (``phoenix.trace.dsl``, OpenInference
semantic conventions ``openinference-semantic-conventions``).
"""

from __future__ import annotations

import math
from typing import Any

from ..exceptions import InvalidInputError
from ._formats import read_records as read_table
from ._records import Records
from ._spans import span_row

__all__ = ["read_records"]

_PREFIX = "attributes."


def _present(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def read_records(
    path: str, *, what: str, argument: str, noun: str = "span", caller: str = ""
) -> Records:
    """The spans of a saved Phoenix spans dataframe, one span row each."""
    table = read_table(path, what=what, argument=argument, noun=noun, caller=caller)
    rows = []
    for row, place in zip(table.rows, table.where, strict=True):
        trace_id, span_id = row.get("context.trace_id"), row.get("context.span_id")
        if not _present(trace_id) or not _present(span_id):
            raise InvalidInputError(
                f"{place}: a Phoenix span needs context.trace_id and context.span_id"
            )
        attributes = {
            key[len(_PREFIX) :]: value
            for key, value in row.items()
            if key.startswith(_PREFIX) and _present(value)
        }
        parent = row.get("parent_id")
        rows.append(
            span_row(
                str(trace_id),
                str(span_id),
                str(parent) if _present(parent) else None,
                row.get("name"),
                row.get("span_kind"),
                attributes,
            )
        )
    return Records(rows, list(table.where), table=False, text=False)
