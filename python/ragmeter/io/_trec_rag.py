"""TREC RAG answer files (the row ``trec_rag`` of :data:`ragmeter.io.FORMATS`): one generated
answer a line, in the form of the TREC 2024 or the TREC 2025 RAG track.

* 2024 (``check_trec_rag24_gen.py``): ``{"run_id", "topic_id", "topic", "references":
  [segment ids], "response_length", "answer": [{"text", "citations": [indices into
  references]}]}``;
* 2025 (``validate_trec_rag25_gen.py``): ``{"metadata": {"team_id", "run_id", "type",
  "narrative_id", "narrative", ...}, "references": [...], "answer": [{"text", "citations"}]}``,
  citations indices into ``references`` (format 1) or segment ids found in it (format 2).

Each line is refused, naming the file and line, unless it is one JSON object of one of these
forms: a key given twice, ``references`` that are not strings, a sentence without ``text`` or
``citations``, a citation index out of range or a segment id not among the references. Keys
ragmeter does not read are kept, in their order: :func:`dumps_trec_rag` writes a row back exactly
as ragnarok writes it (``json.dumps`` with its defaults, one line each), so a file ragnarok or
ragmeter wrote is written back byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._files import read_regular_text
from ..exceptions import InvalidInputError
from ._json import parse_json_text, preview
from ._records import Records

__all__ = ["dumps_trec_rag", "read_records", "trec_rag_form"]

_FORM_2024 = ("run_id", "topic_id", "topic", "references", "answer")


def trec_rag_form(row: Mapping[str, Any]) -> int:
    """2025 when the row has ``metadata``, 2024 when it has ``run_id`` and ``topic_id``.

    Raises
    ------
    InvalidInputError
        Neither form (the message names what is missing).
    """
    if "metadata" in row:
        metadata = row["metadata"]
        if not isinstance(metadata, Mapping):
            raise InvalidInputError("metadata: expected an object")
        missing = [k for k in ("run_id", "narrative_id") if k not in metadata]
        if missing:
            raise InvalidInputError(f"metadata.{missing[0]}: missing (TREC 2025 form)")
        return 2025
    missing = [k for k in _FORM_2024 if k not in row]
    if missing:
        raise InvalidInputError(
            f"{missing[0]}: missing; a TREC RAG answer has 'metadata' (2025) or "
            f"{', '.join(_FORM_2024)} (2024)"
        )
    return 2024


def _check_answer(row: Mapping[str, Any]) -> None:
    form = trec_rag_form(row)
    ids = (
        (row["metadata"]["run_id"], row["metadata"]["narrative_id"])
        if form == 2025
        else (
            row["run_id"],
            row["topic_id"],
        )
    )
    for name, value in zip(("run_id", "topic id"), ids, strict=True):
        if not isinstance(value, str | int) or isinstance(value, bool) or str(value) == "":
            raise InvalidInputError(f"{name}: expected a non-empty string, got {preview(value)}")
    references = row.get("references")
    if not isinstance(references, list) or not all(isinstance(r, str) for r in references):
        raise InvalidInputError("references: expected a list of segment ids (strings)")
    sentences = row.get("answer")
    if not isinstance(sentences, list):
        raise InvalidInputError("answer: expected a list of {text, citations} objects")
    for i, sentence in enumerate(sentences):
        if not isinstance(sentence, Mapping):
            raise InvalidInputError(f"answer[{i}]: expected an object")
        if not isinstance(sentence.get("text"), str):
            raise InvalidInputError(f"answer[{i}].text: missing or not a string")
        citations = sentence.get("citations")
        if not isinstance(citations, list):
            raise InvalidInputError(f"answer[{i}].citations: missing or not a list")
        for citation in citations:
            if isinstance(citation, bool) or not isinstance(citation, int | str):
                raise InvalidInputError(
                    f"answer[{i}].citations: {preview(citation)} is neither an index into "
                    "references nor a segment id"
                )
            if isinstance(citation, int) and not 0 <= citation < len(references):
                raise InvalidInputError(
                    f"answer[{i}].citations: index {citation} is out of range (the answer has "
                    f"{len(references)} references)"
                )
            if isinstance(citation, str) and citation not in references:
                raise InvalidInputError(
                    f"answer[{i}].citations: segment {citation!r} is not among the references"
                )


def read_records(
    path: str, *, what: str, argument: str, noun: str = "answer", caller: str = ""
) -> Records:
    """The answers of a TREC RAG answer file, one a line (blank lines skipped), each checked
    (see the module documentation) and located by its line."""
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
                f"{location}: each line must be one JSON object (a TREC RAG {noun}), got "
                f"{type(row).__name__} {preview(row)}"
            )
        try:
            _check_answer(row)
        except InvalidInputError as exc:
            raise InvalidInputError(f"{location}: {exc}") from None
        rows.append(row)
        where.append(location)
    return Records(rows, where, table=False, text=False)


def dumps_trec_rag(row: Mapping[str, Any]) -> str:
    """One line of a TREC RAG answer file, as ragnarok writes it (``json.dumps`` with its
    defaults: ASCII escapes, ``", "`` and ``": "`` separators), with its newline."""
    return json.dumps(row) + "\n"
