"""Judgments and runs stored as JSON objects (the row ``json`` of :data:`ragmeter.io.FORMATS`).

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

__all__ = ["read_json"]


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
