"""Samples from files and tables: :func:`load_samples` (JSONL, JSON, CSV, Parquet, DataFrames).

Rows become :class:`~ragmeter.judges.Sample` objects through the same validation as
``evaluate``'s inputs (:func:`~ragmeter.judges.sample.coerce_samples`): every column is read or
refused by name, so a misnamed column never leaves a field silently empty. Each file or table
uses one naming convention:

| convention | question | answer | contexts | reference |
|---|---|---|---|---|
| ragmeter | `question` | `answer` | `contexts` | `reference` |
| ragas | `user_input` | `response` | `retrieved_contexts` | `reference` |
| ragas 0.1 | `question` | `answer` | `contexts` | `ground_truth` |
| DeepEval | `input` | `actual_output` | `retrieval_context`, `context` | `expected_output` |
| embedchain | `question` | `answer` | `contexts` | `ground_truth` |

``id`` (or ``sample_id``) and ``metadata`` go with any convention; ragmeter's own names also
take ``query``, ``reference_answer`` and ``answer_b``. A table whose columns come from two
conventions (``user_input`` with ``answer``) is refused: it usually means two exports were
concatenated, and the columns of one would be read as the other's.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from .._files import path_argument
from ..exceptions import InputTypeError, InvalidInputError
from ..io import loads_json, parse_json_text, read_records
from .sample import FIELD_ALIASES, FIELDS, Sample, coerce_samples, unknown_field

__all__ = ["CONVENTIONS", "Convention", "FileFormat", "load_samples"]

Convention = Literal["auto", "ragmeter", "ragas", "ragas 0.1", "deepeval", "embedchain"]
FileFormat = Literal["jsonl", "json", "csv", "tsv", "parquet"]

CONVENTIONS: dict[str, tuple[str, ...]] = {
    "ragmeter": (
        "question",
        "query",
        "answer",
        "answer_b",
        "contexts",
        "reference",
        "reference_answer",
    ),
    "ragas": ("user_input", "response", "retrieved_contexts", "reference"),
    "ragas 0.1": ("question", "answer", "contexts", "ground_truth"),
    "deepeval": ("input", "actual_output", "retrieval_context", "context", "expected_output"),
    "embedchain": ("question", "answer", "contexts", "ground_truth"),
}
# Columns any convention may carry.
_NEUTRAL = frozenset({"id", "sample_id", "metadata"})
_LIST_EXAMPLE = '["first passage", "second passage"]'


def _field(name: str) -> str:
    return FIELD_ALIASES.get(name, name)


_CONTEXT_COLUMNS = frozenset(k for k in (*FIELDS, *FIELD_ALIASES) if _field(k) == "contexts")


def _rename(name: str, convention: str) -> str | None:
    """The name ``convention`` gives the field that ``name`` stands for."""
    field = _field(name)
    for candidate in CONVENTIONS[convention]:
        if _field(candidate) == field:
            return candidate
    return None


def _names(conventions: Iterable[str]) -> str:
    ordered = sorted(conventions)
    return ordered[0] if len(ordered) == 1 else f"{', '.join(ordered[:-1])} or {ordered[-1]}"


def _check_convention(rows: Sequence[Mapping[str, Any]], where: Sequence[str], chosen: str) -> str:
    """The one convention every row's columns fit, or an error naming the first misfit."""
    possible = set(CONVENTIONS) if chosen == "auto" else {chosen}
    narrowed: tuple[str, str] | None = None  # the last column (and where) that narrowed it
    for row, location in zip(rows, where, strict=True):
        for key in row:
            name = str(key)
            if name in _NEUTRAL:
                continue
            homes = {c for c, names in CONVENTIONS.items() if name in names}
            if not homes:
                continue  # not a sample field at all: coerce_samples refuses it by name
            remaining = possible & homes
            if not remaining:
                target = sorted(possible)[0]
                renamed = _rename(name, target)
                fix = (
                    f"rename it {renamed!r}"
                    if renamed is not None
                    else f"drop it ({_names(possible)} has no such field)"
                )
                if chosen != "auto":
                    raise InvalidInputError(
                        f"{location}: column {name!r} is not a name of convention={chosen!r} "
                        f"(which names its columns {', '.join(CONVENTIONS[chosen])}, plus id and "
                        f"metadata); {fix}, or pass convention='auto'"
                    )
                assert narrowed is not None
                raise InvalidInputError(
                    f"{location}: column {name!r} is a name of {_names(homes)}, but column "
                    f"{narrowed[0]!r} ({narrowed[1]}) is a name of {_names(possible)}: the columns "
                    "of one input must follow one naming convention (mixed names usually mean "
                    f"two exports were concatenated); {fix}"
                )
            if remaining != possible:
                narrowed = (name, location)
            possible = remaining
    return sorted(possible)[0]


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _preview(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _as_list(value: Any, key: str, location: str, *, table: bool) -> Any:
    """A contexts value as a list (a numpy or Arrow array becomes one), or an error."""
    if _is_missing(value) or isinstance(value, list | tuple):
        return value
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, str | bytes):
        listed = tolist()
        if isinstance(listed, list):
            return listed
    hint = (
        "a table read from a CSV holds the list as JSON text: decode the column first "
        f"(df[{key!r}] = df[{key!r}].map(json.loads)) or pass the CSV's path to load_samples, "
        "which decodes it"
        if table and isinstance(value, str)
        else f'write it as a JSON list, such as {_LIST_EXAMPLE} (one passage too: ["..."])'
    )
    raise InvalidInputError(
        f"{location}: column {key!r} must be a list of strings (the retrieved passages, in rank "
        f"order), got {type(value).__name__} {_preview(value)}; {hint}"
    )


def _csv_cell(key: str, cell: str, location: str) -> Any:
    if cell == "":
        return None
    if key in _CONTEXT_COLUMNS:
        try:
            value = loads_json(cell)
        except ValueError as exc:  # json.JSONDecodeError
            problem = f"not JSON: {getattr(exc, 'msg', exc)}"
        else:
            if isinstance(value, list):
                return value
            problem = f"JSON {type(value).__name__}, not a list"
        raise InvalidInputError(
            f"{location}: column {key!r} must hold a JSON list of strings, such as "
            f"{_LIST_EXAMPLE}, got {_preview(cell)} ({problem}); a CSV cell holds text only, "
            "so load_samples reads the list as JSON: write each cell with json.dumps(list)"
        )
    if key == "metadata":
        value = parse_json_text(cell, location, "column 'metadata'")
        if not isinstance(value, dict):
            raise InvalidInputError(
                f"{location}: column 'metadata' must hold a JSON object, got {_preview(cell)}"
            )
        return value
    return cell


def _rows_of(source: Any, file_format: FileFormat | None) -> tuple[list[Any], list[str], bool, str]:
    """``(rows, where, is_table, name)`` of a path, a DataFrame, an Arrow table or a list."""
    if isinstance(source, str | bytes | os.PathLike):
        name = path_argument(source, "path_or_table")
        records = read_records(
            name,
            format=file_format,
            what="a samples file",
            argument="path_or_table",
            noun="sample",
            caller="load_samples",
        )
        rows = records.rows
        if records.text:  # CSV, TSV: every cell is text
            rows = [
                {key: _csv_cell(key, cell, location) for key, cell in row.items()}
                for row, location in zip(rows, records.where, strict=True)
            ]
        return rows, records.where, records.table, name
    if file_format is not None:
        raise InvalidInputError(
            f"format={file_format!r} applies to a path only; path_or_table is a "
            f"{type(source).__name__}"
        )
    if hasattr(source, "to_dicts") and hasattr(source, "columns"):  # a polars DataFrame
        rows = source.to_dicts()
        return rows, [f"DataFrame row {i}" for i in range(len(rows))], True, "the DataFrame"
    if hasattr(source, "to_dict") and hasattr(source, "columns"):  # a pandas DataFrame
        rows = source.to_dict("records")
        return rows, [f"DataFrame row {i}" for i in range(len(rows))], True, "the DataFrame"
    if hasattr(source, "to_pylist") and hasattr(source, "schema"):  # an Arrow table or batch
        rows = source.to_pylist()
        return rows, [f"Table row {i}" for i in range(len(rows))], True, "the Table"
    if isinstance(source, list | tuple):
        for i, row in enumerate(source):
            if not isinstance(row, Mapping):
                raise InputTypeError(
                    f"path_or_table[{i}] must be a dict (one sample), got {type(row).__name__}; "
                    "pass a list of dicts, a DataFrame, an Arrow table or a file's path"
                )
        return list(source), [f"samples[{i}]" for i in range(len(source))], False, "the list"
    raise InputTypeError(
        f"path_or_table must be the path of a .jsonl, .json, .csv, .tsv or .parquet file, a "
        f"pandas DataFrame, a pyarrow Table or a list of dicts, got {type(source).__name__}"
    )


ExtraColumns = Literal["raise", "metadata"]
_KNOWN_COLUMNS = frozenset((*FIELDS, *FIELD_ALIASES))


def _extra_columns(
    row: Mapping[str, Any], location: str, extra_columns: ExtraColumns
) -> Mapping[str, Any]:
    """The row with its columns that are no sample field refused (``"raise"``) or moved under
    its ``metadata`` (``"metadata"``; an empty cell is left out, a key already in the row's
    metadata is refused)."""
    extra = [key for key in row if str(key) not in _KNOWN_COLUMNS]
    if not extra:
        return row
    if extra_columns == "raise":
        raise unknown_field(
            str(extra[0]),
            f"{location}: column",
            ", or pass load_samples(..., extra_columns='metadata') to keep every such column "
            "in the sample's metadata",
        )
    kept = {key: value for key, value in row.items() if str(key) in _KNOWN_COLUMNS}
    metadata = kept.get("metadata")
    if _is_missing(metadata):
        metadata = {}
    if not isinstance(metadata, Mapping):
        return row  # coerce_samples refuses a metadata that is not a mapping, by name
    moved = {str(k): row[k] for k in extra if not _is_missing(row[k])}
    clash = sorted(set(moved) & set(map(str, metadata)))
    if clash:
        raise InvalidInputError(
            f"{location}: column {clash[0]!r} is also a key of the row's metadata: rename "
            "the column or the key (extra_columns='metadata' keeps both otherwise)"
        )
    kept["metadata"] = {**metadata, **moved}
    return kept


def load_samples(
    path_or_table: Any,
    *,
    format: FileFormat | None = None,
    convention: Convention = "auto",
    extra_columns: ExtraColumns = "raise",
) -> list[Sample]:
    """The samples of a file or table, ready for :func:`~ragmeter.judges.evaluate`.

    Column names follow one convention of ragmeter, ragas (and ragas 0.1), DeepEval or
    embedchain (see :mod:`ragmeter.judges.loading`); rows are validated as ``evaluate``
    validates its inputs, and every error names the file and line (or the row) and what to do.

    Parameters
    ----------
    path_or_table
        A path to a ``.jsonl`` (one JSON object a line), ``.json`` (a list of
        objects, or an object of column lists), ``.csv`` / ``.tsv`` (a header line; a
        contexts cell holds a JSON list, such as ``["first passage", "second"]``, and a
        ``metadata`` cell a JSON object; an empty cell is not given) or ``.parquet`` file
        (the optional extra ``ragmeter[arrow]``); a pandas DataFrame; a pyarrow Table; or a
        list of dicts.
    format
        The file's format when its suffix does not say (``"jsonl"``, ``"json"``,
        ``"csv"``, ``"tsv"``, ``"parquet"``).
    convention
        ``"auto"`` (the one convention every column fits) or the one to require:
        ``"ragmeter"``, ``"ragas"``, ``"ragas 0.1"``, ``"deepeval"``, ``"embedchain"``.
    extra_columns
        What to do with a column that is no sample field (an export's ``retrieved_ids``,
        ``latency_ms``): ``"raise"`` (the default: an error naming it, so that a misspelled
        field, such as ``contexs``, never leaves the field empty unnoticed) or
        ``"metadata"`` (keep it in each sample's ``metadata``, beside a ``metadata``
        column's keys; an empty cell is left out).

    Returns
    -------
    list[Sample]
        One :class:`~ragmeter.judges.Sample` per row, in order (ids default to the row's
        position).

    Raises
    ------
    InvalidInputError
        a line that is not JSON, an unknown or repeated column, columns of
        two conventions, a contexts value that is not a list, a row without a question, a
        repeated id, an empty file, an unknown suffix.
    InputTypeError
        ``path_or_table`` of another type.
    InputFileNotFoundError
        no such file (an ``OSError``; also a ``ValueError``).
    MissingDependencyError
        a Parquet file without pyarrow (``pip install
        'ragmeter[arrow]'``).

    Examples
    --------
    >>> import json
    >>> from ragmeter.judges import load_samples
    >>> with open("ragas.jsonl", "w") as out:
    ...     print(json.dumps({"user_input": "Where is Paris?", "response": "In France.",
    ...                       "retrieved_contexts": ["Paris is in France."]}), file=out)
    >>> load_samples("ragas.jsonl")[0].contexts
    ('Paris is in France.',)
    >>> load_samples([{"input": "Who wrote Hamlet?", "actual_output": "Shakespeare."}])
    [Sample(question='Who wrote Hamlet?', answer='Shakespeare.', contexts=None, ...)]
    >>> rows = [{"question": "Who?", "answer": "Shakespeare.", "retrieved_ids": ["d3", "d7"]}]
    >>> load_samples(rows, extra_columns="metadata")[0].metadata
    {'retrieved_ids': ['d3', 'd7']}
    """
    if convention != "auto" and convention not in CONVENTIONS:
        raise InvalidInputError(
            f"convention must be 'auto' or one of {', '.join(map(repr, CONVENTIONS))}, got "
            f"{convention!r}"
        )
    rows, where, is_table, name = _rows_of(path_or_table, format)
    if not rows:
        raise InvalidInputError(
            f"{name} holds no samples; write one sample a row (columns such as question, "
            "answer, contexts)"
        )
    if extra_columns not in ("raise", "metadata"):
        raise InvalidInputError(
            f"extra_columns must be 'raise' or 'metadata', got {extra_columns!r}"
        )
    _check_convention(rows, where, convention)
    rows = [
        _extra_columns(row, location, extra_columns) if isinstance(row, Mapping) else row
        for row, location in zip(rows, where, strict=True)
    ]
    checked = [
        {
            key: _as_list(value, str(key), location, table=is_table)
            if str(key) in _CONTEXT_COLUMNS
            else value
            for key, value in row.items()
        }
        for row, location in zip(rows, where, strict=True)
    ]
    return coerce_samples(checked, where=where, column=True)
