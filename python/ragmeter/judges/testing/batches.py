"""The OpenAI Batch API of the loopback server: ``/v1/files`` and ``/v1/batches``, for tests.

:class:`FakeBatches` keeps uploaded files and batches in memory and runs a batch's lines in a
thread through the server's own chat answer (:meth:`LoopbackOpenAIServer.chat_answer`), so a
line gets exactly what the same request sent online would get. Scriptable: ``line_fault``
fails chosen lines (an error line, as OpenAI writes one to the batch's error file),
``expire_after`` stops a batch after that many lines (status ``expired``: the rest are
``batch_expired`` error lines), and ``hold()`` keeps batches ``in_progress`` until
``release()`` (a client killed while waiting).
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["FakeBatches", "LineFault"]

#: ``line_fault(custom_id, body)`` -> ``(status, message)`` to fail that line, else ``None``.
LineFault = Callable[[str, Mapping[str, Any]], "tuple[int, str] | None"]


def parse_multipart(content_type: str, body: bytes) -> dict[str, tuple[str | None, bytes]]:
    """The parts of a ``multipart/form-data`` body: ``{name: (filename, bytes)}``."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    parts: dict[str, tuple[str | None, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if isinstance(name, str):
            payload = part.get_payload(decode=True)
            parts[name] = (part.get_filename(), payload if isinstance(payload, bytes) else b"")
    return parts


class FakeBatches:
    """Files and batches of one loopback server (see the module's docstring)."""

    def __init__(self, answer: Callable[[Any], tuple[int, dict[str, Any]]]):
        self._answer = answer
        self._lock = threading.Lock()
        self.files: dict[str, tuple[str, bytes]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.line_fault: LineFault | None = None
        self.expire_after: int | None = None
        self.lines_run = 0
        self._released = threading.Event()
        self._released.set()
        self._hold_from = 1
        self._threads: list[threading.Thread] = []

    def hold(self, from_batch: int = 1) -> None:
        """Keep batches ``in_progress`` until :meth:`release`: the ``from_batch``-th created
        and every later one (those before run as usual)."""
        self._hold_from = from_batch
        self._released.clear()

    def release(self) -> None:
        """Let held batches run to the end."""
        self._released.set()

    def wait(self, timeout_s: float = 30.0) -> None:
        """Wait for the batches' threads (for a test that reads the state after a run)."""
        for thread in list(self._threads):
            thread.join(timeout_s)

    def upload(self, filename: str, content: bytes) -> dict[str, Any]:
        with self._lock:
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = (filename, content)
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": "batch",
        }

    def content(self, file_id: str) -> bytes | None:
        with self._lock:
            found = self.files.get(file_id)
        return None if found is None else found[1]

    def create(self, body: Any) -> tuple[int, dict[str, Any]]:
        if not isinstance(body, dict) or body.get("input_file_id") not in self.files:
            return 400, {"error": {"message": "input_file_id names no uploaded file"}}
        if body.get("endpoint") != "/v1/chat/completions":
            return 400, {"error": {"message": "only /v1/chat/completions is served"}}
        with self._lock:
            batch_id = f"batch_{len(self.batches) + 1}"
            batch: dict[str, Any] = {
                "id": batch_id,
                "object": "batch",
                "endpoint": body["endpoint"],
                "input_file_id": body["input_file_id"],
                "completion_window": body.get("completion_window", "24h"),
                "status": "validating",
                "output_file_id": None,
                "error_file_id": None,
                "created_at": int(time.time()),
                "errors": None,
                "request_counts": {"total": 0, "completed": 0, "failed": 0},
                "metadata": body.get("metadata"),
            }
            self.batches[batch_id] = batch
        thread = threading.Thread(target=self._run, args=(batch_id,), daemon=True)
        self._threads.append(thread)
        thread.start()
        return 200, dict(batch)

    def retrieve(self, batch_id: str) -> dict[str, Any] | None:
        with self._lock:
            batch = self.batches.get(batch_id)
            return None if batch is None else json.loads(json.dumps(batch))

    def _set(self, batch_id: str, **fields: Any) -> None:
        with self._lock:
            self.batches[batch_id].update(fields)

    def _store(self, name: str, lines: list[dict[str, Any]]) -> str | None:
        if not lines:
            return None
        content = "".join(json.dumps(line) + "\n" for line in lines).encode()
        return str(self.upload(name, content)["id"])

    def _run(self, batch_id: str) -> None:
        with self._lock:
            _, raw = self.files[self.batches[batch_id]["input_file_id"]]
        try:
            requests = [json.loads(line) for line in raw.decode("utf-8").splitlines() if line]
            if not all(
                isinstance(r, dict) and isinstance(r.get("custom_id"), str) for r in requests
            ):
                raise ValueError("a line has no custom_id")
        except ValueError as exc:
            self._set(
                batch_id,
                status="failed",
                errors={"data": [{"code": "invalid_json_line", "message": str(exc)}]},
            )
            return
        self._set(
            batch_id,
            status="in_progress",
            request_counts={"total": len(requests), "completed": 0, "failed": 0},
        )
        if int(batch_id.rsplit("_", 1)[1]) >= self._hold_from:
            self._released.wait()
        outputs: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        for number, line in enumerate(requests, start=1):
            custom_id = line["custom_id"]
            if self.expire_after is not None and number > self.expire_after:
                errors.append(
                    {
                        "id": f"batch_req_{batch_id}_{number}",
                        "custom_id": custom_id,
                        "response": None,
                        "error": {
                            "code": "batch_expired",
                            "message": "This request could not be executed before the "
                            "completion window expired.",
                        },
                    }
                )
                continue
            fault = None if self.line_fault is None else self.line_fault(custom_id, line["body"])
            if fault is not None:
                status, payload = fault[0], {"error": {"message": fault[1], "type": "scripted"}}
            else:
                status, payload = self._answer(line.get("body"))
            with self._lock:
                self.lines_run += 1
            entry = {
                "id": f"batch_req_{batch_id}_{number}",
                "custom_id": custom_id,
                "response": {
                    "status_code": status,
                    "request_id": f"req_{batch_id}_{number}",
                    "body": payload,
                },
                "error": None,
            }
            (outputs if status == 200 else errors).append(entry)
        expired = self.expire_after is not None and len(requests) > self.expire_after
        self._set(
            batch_id,
            status="expired" if expired else "completed",
            output_file_id=self._store(f"{batch_id}_output.jsonl", outputs),
            error_file_id=self._store(f"{batch_id}_errors.jsonl", errors),
            request_counts={
                "total": len(requests),
                "completed": len(outputs),
                "failed": len(errors),
            },
        )
