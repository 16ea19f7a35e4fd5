"""Embedders for ``answer_relevancy``: OpenAI-compatible ``/embeddings`` clients.

An embedder returns one vector per text in input order; a reply with the wrong number of
vectors, or with indices that do not cover the batch, is a protocol error (retried, then
reported), never silently zipped against the wrong texts.
"""

from __future__ import annotations

import asyncio
import inspect
import ssl
from collections.abc import Mapping, Sequence
from typing import Any

from ...exceptions import InvalidInputError, JudgeConfigurationError, JudgeTransportError
from .environment import (
    ENV_EMBEDDING_MODEL,
    default_concurrency,
    default_timeout,
    env_value,
    resolve_api_key,
    resolve_endpoint,
)
from .http import DEFAULT_MAX_RESPONSE_BYTES, HttpEndpoint, check_max_response_bytes
from .limits import Limits, RetryPolicy
from .protocol import check_identity, client_identity
from .sdk import guard_client, map_client_error
from .secrets import Secret, split_credentials

__all__ = ["OpenAIClientEmbedder", "OpenAICompatibleEmbedder"]


def _vectors_from(envelope: Any, n_texts: int, where: str) -> tuple[list[list[float]], int]:
    try:
        data = envelope["data"]
        pairs = sorted(
            ((int(item.get("index", i)), item["embedding"]) for i, item in enumerate(data)),
            key=lambda p: p[0],
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise JudgeTransportError(
            f"{where} answered without a data[].embedding list", kind="protocol", retryable=True
        ) from None
    if len(pairs) != n_texts or [i for i, _ in pairs] != list(range(n_texts)):
        raise JudgeTransportError(
            f"{where} returned {len(pairs)} embeddings (indices {[i for i, _ in pairs][:10]}) "
            f"for {n_texts} texts",
            kind="protocol",
            retryable=True,
        )
    usage = envelope.get("usage") if isinstance(envelope, Mapping) else None
    tokens = usage.get("prompt_tokens", 0) if isinstance(usage, Mapping) else 0
    return [_vector(vector, i, where) for i, vector in pairs], int(tokens or 0)


def _vector(value: Any, index: int, where: str) -> list[float]:
    """One embedding as floats, or a protocol error that says what the server sent instead."""
    if isinstance(value, list) and value and all(isinstance(row, list) for row in value):
        width = len(value[0]) if value[0] else 0
        raise JudgeTransportError(
            f"{where} returned one vector per token ({len(value)} x {width}) for text {index} "
            "instead of one pooled vector per text: the server runs without pooling. Start it "
            "with pooling (llama.cpp's llama-server: --embeddings --pooling mean; "
            "llama-cpp-python: --embedding true --kv_overrides llama.pooling_type=int:1) or use "
            "another embeddings server",
            kind="protocol",
            fatal=True,
        )
    if not isinstance(value, list) or not value:
        raise JudgeTransportError(
            f"{where} returned {type(value).__name__} for embedding {index}, not a list of numbers",
            kind="protocol",
            retryable=True,
        )
    try:
        return [float(x) for x in value]
    except (TypeError, ValueError):
        raise JudgeTransportError(
            f"{where} returned an embedding {index} holding non-numbers ({str(value)[:80]!r}...)",
            kind="protocol",
            retryable=True,
        ) from None


class OpenAICompatibleEmbedder:
    """Embeddings from an OpenAI-compatible ``/embeddings`` endpoint, over httpx.

    A chat server does not necessarily serve embeddings (many local ones do not, or only when
    started with pooling): give the embedder its own ``base_url`` when needed.

    Parameters
    ----------
    base_url, api_key, timeout_s, rpm, retry_policy, headers, transport, lean_transport, verify
        As for :class:`OpenAICompatibleJudge`.
    max_response_bytes
        As for :class:`OpenAICompatibleJudge` (64 MiB: an answer of 256 vectors of 4,096
        dimensions is about 23 MB of JSON).
    model
        The embedding model; default ``$RAGMETER_EMBEDDING_MODEL``.
    name
        Identifies the embedder in cache keys (default: the model).
    identity
        Says which model embeds, in place of ``base_url`` in cache keys (see
        :class:`OpenAICompatibleJudge`): the same server on another port then reuses the
        cached vectors.
    batch_size
        Texts per request.
    max_concurrency
        Requests in flight; default 2 for a server on this machine, else 8.

    Raises
    ------
    JudgeConfigurationError
        no model, or api.openai.com without a key.
    InvalidInputError
        a bad ``base_url``, key or ``batch_size``.

    Examples
    --------
    >>> embedder = OpenAICompatibleEmbedder(base_url="http://127.0.0.1:8081/v1", model="bge-m3")
    >>> embedder.identity["model"], embedder.limits.max_concurrency
    ('bge-m3', 2)
    """

    kind = "openai_compatible"

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | Secret | None = None,
        *,
        name: str | None = None,
        identity: str | None = None,
        batch_size: int = 256,
        timeout_s: float | None = None,
        max_concurrency: int | None = None,
        rpm: float | None = None,
        retry_policy: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        transport: Any = None,
        lean_transport: bool = True,
        verify: bool | ssl.SSLContext = True,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    ):
        if batch_size < 1:
            raise InvalidInputError(f"batch_size must be >= 1, got {batch_size!r}")
        self.endpoint_identity = check_identity(identity, "OpenAICompatibleEmbedder")
        self.base_url, basic_auth = resolve_endpoint(base_url)
        resolved = model or _env_model()
        if not resolved:
            raise JudgeConfigurationError(
                "No embedding model is configured: pass model=... (or embedder=...) or set "
                f"{ENV_EMBEDDING_MODEL}=<model name>"
            )
        self.model = resolved
        self.name = name or resolved
        self.batch_size = batch_size
        concurrency = default_concurrency(self.base_url, 8, max_concurrency)
        self.limits = Limits(max_concurrency=concurrency, rpm=rpm)
        self.retry_policy = retry_policy or RetryPolicy()
        self._api_key = resolve_api_key(api_key, self.base_url, what="OpenAICompatibleEmbedder")
        self._http = HttpEndpoint(
            self.base_url,
            self._api_key,
            basic_auth=basic_auth,
            timeout_s=default_timeout(self.base_url, timeout_s),
            max_connections=concurrency,
            headers=headers,
            transport=transport,
            purpose="OpenAICompatibleEmbedder",
            lean_transport=lean_transport,
            verify=verify,
            max_response_bytes=check_max_response_bytes(max_response_bytes),
        )

    @property
    def identity(self) -> dict[str, Any]:
        """The non-secret facts that identify it in cache keys and manifests (never a key)."""
        return client_identity(
            self.kind, self.name, self.base_url, self.model, self.endpoint_identity
        )

    def __repr__(self) -> str:
        key = "'***'" if self._api_key else "None"
        return (
            f"OpenAICompatibleEmbedder(base_url={self.base_url!r}, model={self.model!r}, "
            f"api_key={key})"
        )

    async def embed_with_usage(self, texts: Sequence[str]) -> tuple[list[list[float]], int]:
        """The vectors of ``texts`` (``batch_size`` per request) and the tokens reported.

        Raises
        ------
        JudgeTransportError
            the endpoint failed, or answered with the wrong number or shape
            of vectors.
        """
        vectors: list[list[float]] = []
        tokens = 0
        batch = list(texts)
        for start in range(0, len(batch), self.batch_size):
            chunk = batch[start : start + self.batch_size]
            envelope = await self._http.post("embeddings", {"model": self.model, "input": chunk})
            got, used = _vectors_from(envelope, len(chunk), f"{self.base_url}/embeddings")
            vectors.extend(got)
            tokens += used
        return vectors, tokens

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """The vectors of ``texts``, in order."""
        return (await self.embed_with_usage(texts))[0]

    async def aclose(self) -> None:
        """Close this event loop's connections."""
        await self._http.aclose()


class OpenAIClientEmbedder:
    """Embeddings through an ``openai.OpenAI`` / ``openai.AsyncOpenAI`` client object.

    Parameters
    ----------
    client
        The client (its own retries are switched off; ragmeter retries).
    model
        The embedding model; default ``$RAGMETER_EMBEDDING_MODEL``.
    name
        Identifies the embedder in cache keys (default: the model).
    identity
        Says which model embeds, in place of the client's ``base_url`` in cache keys
        (see :class:`OpenAICompatibleJudge`).
    batch_size
        Texts per request.

    Raises
    ------
    JudgeConfigurationError
        no model.
    """

    kind = "openai_client"

    def __init__(
        self,
        client: Any,
        model: str | None = None,
        *,
        name: str | None = None,
        identity: str | None = None,
        batch_size: int = 256,
    ):
        self.endpoint_identity = check_identity(identity, "OpenAIClientEmbedder")
        with_options = getattr(client, "with_options", None)
        self._client = with_options(max_retries=0) if callable(with_options) else client
        self._guarded = guard_client(client)
        resolved = model or _env_model()
        if not resolved:
            raise JudgeConfigurationError(
                "No embedding model is configured: pass model=... or set "
                f"{ENV_EMBEDDING_MODEL}=<model name>"
            )
        self.model = resolved
        self.name = name or resolved
        self.batch_size = batch_size
        self.base_url = split_credentials(str(getattr(client, "base_url", "openai-client")))[
            0
        ].rstrip("/")
        self.limits = Limits(max_concurrency=default_concurrency(self.base_url, 8, None))
        self.retry_policy = RetryPolicy()
        self._is_async = (
            inspect.iscoroutinefunction(self._client.embeddings.create)
            or "Async" in type(client).__name__
        )

    @property
    def identity(self) -> dict[str, Any]:
        """The non-secret facts that identify it in cache keys and manifests."""
        return client_identity(
            self.kind, self.name, self.base_url, self.model, self.endpoint_identity
        )

    def __repr__(self) -> str:
        return f"OpenAIClientEmbedder(base_url={self.base_url!r}, model={self.model!r})"

    async def embed_with_usage(self, texts: Sequence[str]) -> tuple[list[list[float]], int]:
        """The vectors of ``texts`` and the prompt tokens the endpoint reported."""
        create = self._client.embeddings.create
        vectors: list[list[float]] = []
        tokens = 0
        batch = list(texts)
        for start in range(0, len(batch), self.batch_size):
            chunk = batch[start : start + self.batch_size]
            try:
                if self._is_async:
                    reply = await create(model=self.model, input=chunk)
                else:
                    reply = await asyncio.to_thread(create, model=self.model, input=chunk)
            except Exception as exc:
                raise map_client_error(exc, self.base_url, path="embeddings") from None
            dump = getattr(reply, "model_dump", None)
            envelope = dump() if callable(dump) else reply
            got, used = _vectors_from(envelope, len(chunk), f"{self.base_url}/embeddings")
            vectors.extend(got)
            tokens += used
        return vectors, tokens

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """The vectors of ``texts``, in order."""
        return (await self.embed_with_usage(texts))[0]


def _env_model() -> str | None:
    return env_value(ENV_EMBEDDING_MODEL)
