"""JSON files (the row ``json`` of :data:`ragmeter.io.FORMATS`): judgments and runs as JSON
objects, records (samples, per-item values) as a list of objects or an object of columns,
and the whole form of saved results.

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
too deeply to parse, ``NaN``, ``Infinity`` and ``-Infinity`` (not JSON numbers, though
Python's ``json`` reads them), malformed JSON, text that is not UTF-8, and anything that is not
a regular file (a FIFO, ``/dev/zero``).
"""

from __future__ import annotations

import json
import os
import sys
import unicodedata
from typing import Any

from .._files import read_regular_text
from ..exceptions import InvalidInputError
from ._records import Records

__all__ = ["loads_json", "parse_json_text", "parse_saved", "preview", "read_json", "read_records"]


def _unique_keys(path: str, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise InvalidInputError(f"{path}: key {key!r} appears twice in one object")
        result[key] = value
    return result


def _not_json(path: str, constant: str, what: str) -> Any:
    """Python's ``json`` reads ``NaN`` and ``Infinity``, which JSON does not have: a grade or
    score written so is an undefined or infinite value, refused here rather than evaluated."""
    raise InvalidInputError(
        f"{path}: holds {constant}, which is not a JSON number (JSON has no NaN or infinity); "
        f"every {'grade' if what == 'qrels' else 'score'} must be a finite number: fix or drop "
        "that entry"
    )


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
                if not isinstance(value, int | float):
                    raise InvalidInputError(
                        f"{path}: {where}the {value_name} of document {_shown(doc)} is "
                        f"{_shown(value)}, not a number; every {value_name} is a JSON number"
                    )
        elif isinstance(entries, list):
            for doc in entries:
                _check_id(path, "document id", doc, where)
                if not isinstance(doc, str | int):
                    raise InvalidInputError(
                        f"{path}: {where}the list holds {_shown(doc)}, not a document id (a string)"
                    )
        else:
            raise InvalidInputError(
                f"{path}: {where}expected an object {{doc_id: {value_name}}} (or a list of "
                f"document ids), got {_shown(entries)}"
            )


def read_json(path: str | os.PathLike[str], what: str) -> dict[str, Any]:
    """A ``{query_id: ...}`` object from a JSON file; ``what`` (``"qrels"`` or ``"run"``) names
    it in errors."""
    name = os.fspath(path)
    text = read_regular_text(path, f"a JSON {what} file", what)
    try:
        data = json.loads(
            text,
            object_pairs_hook=lambda pairs: _unique_keys(name, pairs),
            parse_constant=lambda constant: _not_json(name, constant, what),
        )
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


# -- records and saved results ----------------------------------------------------------------


def preview(value: Any) -> str:
    """``repr(value)``, cut to 80 characters, for messages."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen[key] = value
    return seen


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def loads_json(text: str) -> Any:
    """The JSON value of ``text`` (a cell of a table, a field); a ``ValueError`` (with the
    parser's ``msg``) for text that is not JSON or an object that names a key twice."""
    return json.loads(text, object_pairs_hook=_object)


def parse_json_text(text: str, location: str, what: str) -> Any:
    """The JSON value of ``text`` (``what`` at ``location``: ``"the line"`` at ``path:3``); a
    key given twice in one object, or text that is not JSON, is refused naming both."""
    try:
        return json.loads(text, object_pairs_hook=_object)
    except _DuplicateKey as exc:
        raise InvalidInputError(
            f"{location}: {what} names the key {exc.key!r} twice; keep one"
        ) from None
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"{location}: {what} is not valid JSON ({exc.msg} at column {exc.colno}): "
            f"{preview(text.strip())}"
        ) from None


def read_records(
    path: str, *, what: str, argument: str, noun: str = "row", caller: str = ""
) -> Records:
    """The records of a JSON file: a list of objects (``path: item i``), or an object of
    equally long column lists (``path: row i``)."""
    text = read_regular_text(path, what, argument).removeprefix("\ufeff")
    data = parse_json_text(text, path, "the file")
    if isinstance(data, dict) and data and all(isinstance(v, list) for v in data.values()):
        lengths = {len(v) for v in data.values()}
        if len(lengths) != 1:
            raise InvalidInputError(
                f"{path}: the columns hold lists of different lengths "
                f"({ {k: len(v) for k, v in data.items()} }); give every column one value a row"
            )
        (n,) = lengths
        rows = [{k: v[i] for k, v in data.items()} for i in range(n)]
        return Records(rows, [f"{path}: row {i}" for i in range(n)], table=False, text=False)
    if not isinstance(data, list):
        raise InvalidInputError(
            f"{path}: must hold a JSON list of {noun} objects (or an object of equally long "
            f"column lists), got {type(data).__name__}; for one object a line, name the file "
            ".jsonl"
        )
    for i, row in enumerate(data):
        if not isinstance(row, dict):
            raise InvalidInputError(
                f"{path}: item {i} must be a JSON object (a {noun}), got {type(row).__name__} "
                f"{preview(row)}"
            )
    return Records(data, [f"{path}: item {i}" for i in range(len(data))], table=False, text=False)


def parse_saved(text: str) -> Any:
    """The data of a saved result's JSON text (errors are the parser's own)."""
    return json.loads(text)
