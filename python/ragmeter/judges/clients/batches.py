"""The OpenAI Batch API of an endpoint: upload a JSONL file, create a batch, poll it, download.

``POST /files`` (multipart, ``purpose=batch``), ``POST /batches``, ``GET /batches/{id}`` and
``GET /files/{id}/content``, with the judge's own URL, credentials, TLS settings and timeout
(OpenAI, Azure-style gateways and LiteLLM's proxy serve them; vLLM's server does not, so its
batches run offline with ``vllm run-batch``). Every failure is a
:class:`~ragmeter.JudgeTransportError` whose message names the endpoint and never a secret.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ...exceptions import JudgeTransportError
from .limits import classify_status
from .secrets import redact

__all__ = ["TERMINAL_STATES", "BatchEndpoint"]

#: Batch states after which nothing changes (OpenAI's ``Batch.status``).
TERMINAL_STATES = ("completed", "failed", "expired", "cancelled")


class BatchEndpoint:
    """The files and batches routes of one OpenAI-compatible endpoint.

    ``make_client()`` returns a new ``httpx.AsyncClient`` on the endpoint's ``base_url`` (its
    credentials in its headers); one is opened per operation and closed after it.
    """

    def __init__(self, base_url: str, make_client: Any):
        self.base_url = base_url
        self._make_client = make_client

    async def _request(self, method: str, path: str, **kwargs: Any) -> bytes:
        url = f"{self.base_url}/{path}"
        try:
            async with self._make_client() as client:
                response = await client.request(method, path, **kwargs)
        except Exception as exc:  # httpx's transport errors, named without secrets
            raise JudgeTransportError(
                f"{url}: {type(exc).__name__}: {redact(str(exc))}",
                kind="connection",
                retryable=True,
            ) from None
        if response.status_code != 200:
            text = redact(response.text)
            retryable, fatal = classify_status(response.status_code, text)
            raise JudgeTransportError(
                f"{url} answered HTTP {response.status_code}: {text[:300]}",
                status=response.status_code,
                retryable=retryable,
                fatal=fatal,
                body=text[:2000],
            )
        return bytes(response.content)

    async def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        raw = await self._request(method, path, **kwargs)
        try:
            value = json.loads(raw)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            raise JudgeTransportError(
                f"{self.base_url}/{path} answered with a body that is not a JSON object: "
                f"{redact(raw[:200].decode('utf-8', 'replace'))!r}",
                kind="protocol",
            )
        return value

    async def upload(self, content: bytes, filename: str) -> str:
        """Upload a batch input file; its id."""
        answer = await self._json(
            "POST",
            "files",
            data={"purpose": "batch"},
            files={"file": (filename, content, "application/jsonl")},
        )
        file_id = answer.get("id")
        if not isinstance(file_id, str):
            raise JudgeTransportError(
                f"{self.base_url}/files answered without a file id: {str(answer)[:200]}",
                kind="protocol",
            )
        return file_id

    async def create(
        self,
        input_file_id: str,
        *,
        endpoint: str = "/v1/chat/completions",
        completion_window: str = "24h",
        metadata: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Create a batch of the uploaded file; the batch object."""
        body: dict[str, Any] = {
            "input_file_id": input_file_id,
            "endpoint": endpoint,
            "completion_window": completion_window,
        }
        if metadata:
            body["metadata"] = dict(metadata)
        return await self._json("POST", "batches", json=body)

    async def retrieve(self, batch_id: str) -> dict[str, Any]:
        """The batch object now (its ``status``, ``request_counts``, output and error files)."""
        return await self._json("GET", f"batches/{batch_id}")

    async def content(self, file_id: str) -> bytes:
        """The bytes of a file (a batch's output or error file)."""
        return await self._request("GET", f"files/{file_id}/content")
