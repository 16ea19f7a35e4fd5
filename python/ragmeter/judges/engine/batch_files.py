"""The files of a batch run: rounds of request lines, their state, and the answers read back.

A batch folder holds one sub-folder per round and judge, ``round-0001/<judge>/``:

- ``requests.jsonl``: OpenAI Batch API input, one line per request,
  ``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``, the ``body``
  exactly what the judge would post online;
- ``requests.vllm.jsonl``: the same lines for ``vllm run-batch`` (its input is the OpenAI
  form; the ``model`` is the one vLLM serves, ``BatchMode(vllm_model=...)`` when it differs);
- ``state.json``: the round's judge, request count and submission (file and batch ids, status);
- ``output.jsonl`` and ``errors.jsonl``: the batch's output and error files as downloaded, or
  the output ``vllm run-batch -o`` wrote (OpenAI's output form: ``{"custom_id", "response":
  {"status_code", "body"}, "error"}``; a line whose ``response`` is the completion itself is
  read too).

A request's ``custom_id`` is the cache key the same call has online, so answers read back
land under the keys an online run uses, and a folder can be read by a rerun after a kill.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..._files import atomic_write_text, read_regular_text
from ...exceptions import InvalidInputError
from ...io import parse_json_text, read_records

__all__ = [
    "CHAT_URL",
    "LineAnswer",
    "Round",
    "read_answers",
    "read_rounds",
    "request_line",
]

CHAT_URL = "/v1/chat/completions"
_ROUND = re.compile(r"round-(\d{4,})")
_SLUG = re.compile(r"[^A-Za-z0-9_.-]+")


def request_line(custom_id: str, body: Mapping[str, Any]) -> str:
    """One batch input line (compact JSON, no newline)."""
    return json.dumps(
        {"custom_id": custom_id, "method": "POST", "url": CHAT_URL, "body": body},
        ensure_ascii=False,
        separators=(",", ":"),
    )


def slug(name: str) -> str:
    """A folder name for a judge's name."""
    return _SLUG.sub("_", name).strip("_")[:60] or "judge"


@dataclass(frozen=True)
class LineAnswer:
    """What a batch output or error line says of one request: a completion, or an error."""

    completion: Mapping[str, Any] | None
    status: int | None = None
    code: str | None = None
    message: str = ""

    @property
    def ok(self) -> bool:
        """Whether the line holds a completion (HTTP 200)."""
        return self.completion is not None


def _line_answer(record: Mapping[str, Any]) -> LineAnswer:
    response = record.get("response")
    error = record.get("error")
    if isinstance(response, Mapping):
        if "choices" in response:  # vLLM writes the completion itself in some versions
            return LineAnswer(response, 200)
        status = response.get("status_code")
        body = response.get("body")
        if status == 200 and isinstance(body, Mapping):
            return LineAnswer(body, 200)
        detail = body.get("error") if isinstance(body, Mapping) else None
        message = (
            str(detail.get("message", detail)) if isinstance(detail, Mapping) else str(body)[:300]
        )
        return LineAnswer(None, status if isinstance(status, int) else None, None, message)
    if isinstance(error, Mapping):
        return LineAnswer(
            None, None, str(error.get("code") or "error"), str(error.get("message") or "")
        )
    return LineAnswer(None, None, "no_response", "the line holds neither a response nor an error")


def read_answers(paths: Iterable[Path]) -> dict[str, LineAnswer]:
    """``{custom_id: LineAnswer}`` of batch output and error files (later files win).

    Raises
    ------
    InvalidInputError
        a line that is not JSON or has no ``custom_id`` (naming the file and line).
    """
    answers: dict[str, LineAnswer] = {}
    for path in paths:
        if not path.exists():
            continue
        records = read_records(
            path, format="jsonl", what="a batch output file", argument="path", noun="output line"
        )
        for record, location in zip(records.rows, records.where, strict=True):
            custom_id = record.get("custom_id")
            if not isinstance(custom_id, str):
                raise InvalidInputError(f"{location}: a batch output line without a custom_id")
            answers[custom_id] = _line_answer(record)
    return answers


@dataclass
class Round:
    """One round of one judge: its folder, its requests and its submission."""

    folder: Path
    judge: str
    custom_ids: list[str] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)

    @property
    def number(self) -> int:
        """The round's number (from its folder's name)."""
        match = _ROUND.fullmatch(self.folder.parent.name)
        return int(match.group(1)) if match else 0

    @property
    def requests_path(self) -> Path:
        return self.folder / "requests.jsonl"

    @property
    def vllm_path(self) -> Path:
        return self.folder / "requests.vllm.jsonl"

    @property
    def output_paths(self) -> tuple[Path, Path]:
        return self.folder / "output.jsonl", self.folder / "errors.jsonl"

    @property
    def status(self) -> str:
        """``written``, ``submitted``, or the batch's last status (``completed`` ...)."""
        return str(self.state.get("status", "written"))

    def has_output(self) -> bool:
        """Whether an output file is there (downloaded, or written by ``vllm run-batch``)."""
        return any(path.exists() for path in self.output_paths)

    def save_state(self) -> None:
        """Write ``state.json`` atomically."""
        atomic_write_text(
            self.folder / "state.json", json.dumps(self.state, indent=1, sort_keys=True) + "\n"
        )

    def write(self, lines: list[tuple[str, Mapping[str, Any]]], vllm_model: str | None) -> None:
        """Write the round's request files and its state (``written``)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.custom_ids = [custom_id for custom_id, _ in lines]
        atomic_write_text(self.requests_path, "".join(request_line(c, b) + "\n" for c, b in lines))
        atomic_write_text(
            self.vllm_path,
            "".join(
                request_line(c, {**b, "model": vllm_model} if vllm_model else b) + "\n"
                for c, b in lines
            ),
        )
        self.state.update(judge=self.judge, requests=len(lines), status="written")
        self.save_state()


def _custom_ids(path: Path) -> Iterator[str]:
    records = read_records(path, format="jsonl", what="a batch request file", argument="path")
    for record in records.rows:
        if isinstance(record.get("custom_id"), str):
            yield record["custom_id"]


def read_rounds(directory: str | os.PathLike[str]) -> list[Round]:
    """The rounds a batch folder holds, oldest first (an empty list for a new folder).

    Raises
    ------
    InvalidInputError
        a ``state.json`` or request file that is not what ragmeter writes.
    """
    root = Path(directory)
    rounds: list[Round] = []
    if not root.is_dir():
        return rounds
    for round_dir in sorted(p for p in root.iterdir() if _ROUND.fullmatch(p.name)):
        for folder in sorted(p for p in round_dir.iterdir() if p.is_dir()):
            state_path = folder / "state.json"
            if not state_path.exists() or not (folder / "requests.jsonl").exists():
                continue  # a round killed while being written: its requests are asked again
            try:
                state = parse_json_text(
                    read_regular_text(state_path, "a batch state file"), str(state_path), "the file"
                )
                ids = list(_custom_ids(folder / "requests.jsonl"))
            except ValueError as exc:
                raise InvalidInputError(
                    f"{folder}: not a batch round ragmeter wrote ({exc}); move it away"
                ) from None
            if not isinstance(state, dict):
                raise InvalidInputError(f"{state_path}: not a batch round's state")
            rounds.append(Round(folder, str(state.get("judge", folder.name)), ids, state))
    return rounds
