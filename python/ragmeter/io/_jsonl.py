"""JSON lines (``.jsonl``, ``.ndjson``): one JSON object a line. The row ``jsonl`` of
:data:`ragmeter.io.FORMATS`: samples and per-item values as records, and the row form of saved
results.

A line that is not JSON, a line that is not one object, a key given twice in one object (Python's
``json`` would keep the last silently) is refused naming the file and line (records are
numbered as lines of text). A saved result's rows end at LF only: ``str.splitlines`` would
also split at U+2028 and the like, which ragmeter's writer escapes and a JSON string may hold.
"""

from __future__ import annotations

from typing import Any

from .._files import read_regular_text
from ..exceptions import InvalidInputError
from ._json import parse_json_text, preview
from ._records import Records

__all__ = ["parse_saved", "read_records"]


def read_records(
    path: str, *, what: str, argument: str, noun: str = "row", caller: str = ""
) -> Records:
    """The objects of a JSON lines file, one a line (blank lines skipped), each located by its
    line (``path:3``); ``what`` names the file's role in errors (``"a samples file"``),
    ``noun`` one record (``"sample"``)."""
    text = read_regular_text(path, what, argument).removeprefix("\ufeff")
    rows: list[dict[str, Any]] = []
    where: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        location = f"{path}:{number}"
        row = parse_json_text(line, location, "the line")
        if not isinstance(row, dict):
            raise InvalidInputError(
                f"{location}: each line must be one JSON object (a {noun}), got "
                f"{type(row).__name__} {preview(row)}"
            )
        rows.append(row)
        where.append(location)
    return Records(rows, where, table=False, text=False)


def parse_saved(text: str) -> list[Any]:
    """The rows of a saved result's JSON lines (errors are the parser's own)."""
    import json

    return [json.loads(line) for line in text.split("\n") if line.strip()]
