"""Judges that speak the OpenAI chat-completions protocol.

:class:`OpenAICompatibleJudge` posts ``/chat/completions`` over httpx (the optional extra
``ragmeter[judges]``) to OpenAI, vLLM, Ollama (``/v1``), llama.cpp's ``llama-server``,
llama-cpp-python's server, LM Studio or any gateway. :class:`OpenAIClientJudge` does the same
through an ``openai.OpenAI`` or ``openai.AsyncOpenAI`` client object.

Structured output is negotiated per ``(base_url, model)`` and remembered: first
``response_format={"type": "json_schema", ...}``, then llama-cpp-python's
``{"type": "json_object", "schema": ...}``, then ``{"type": "json_object"}``, then the schema in
the prompt only. A rejection that names the parameter moves to the next form: a 400/422, or a
5xx whose body mentions ``response_format`` (llama-cpp-python answers OpenAI's json_schema form
with a 500). ``seed`` and ``temperature`` are dropped the same way when an endpoint rejects them.

Nothing here touches the network until a call is made, and API keys are held in a
:class:`Secret` that never shows in reprs, identities, cache keys, logs or error messages.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import ssl
import threading
import time
from collections.abc import Mapping
from typing import Any, Literal

from ...exceptions import InvalidInputError, JudgeTransportError
from ..prompts import SCHEMA_MARKER
from .batches import BatchEndpoint
from .environment import (
    default_concurrency,
    default_timeout,
    resolve_api_key,
    resolve_endpoint,
    resolve_judge_model,
    resolve_model,
)
from .http import DEFAULT_MAX_RESPONSE_BYTES, HttpEndpoint, check_max_response_bytes
from .limits import Limits, RetryPolicy
from .protocol import JudgeRequest, JudgeResponse, Usage, check_identity, client_identity
from .sdk import guard_client, map_client_error
from .secrets import Secret, split_credentials

__all__ = [
    "ChatCompletionsJudge",
    "OpenAIClientJudge",
    "OpenAICompatibleJudge",
    "StructuredOutput",
    "forget_capabilities",
    "judge_from_env",
    "usage_of",
]

StructuredOutput = Literal["auto", "json_schema", "json_object_schema", "json_object", "prompt"]
STRUCTURED_MODES: tuple[str, ...] = ("json_schema", "json_object_schema", "json_object", "prompt")

_CAPABILITIES: dict[tuple[str, str], dict[str, Any]] = {}
_CAPABILITIES_LOCK = threading.Lock()


def forget_capabilities() -> None:
    """Forget what every endpoint was found to accept (the next call probes again)."""
    with _CAPABILITIES_LOCK:
        _CAPABILITIES.clear()


def _response_format(mode: str, request: JudgeRequest) -> dict[str, Any] | None:
    schema = request.response_schema
    if schema is None or mode == "prompt":
        return None
    if mode == "json_schema":
        name = re.sub(r"[^A-Za-z0-9_-]", "_", request.schema_name)[:64] or "answer"
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": dict(schema), "strict": request.strict_schema},
        }
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": dict(schema)}
    return {"type": "json_object"}


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def usage_of(raw: Any) -> Usage | None:
    """The :class:`Usage` of a chat completion's ``usage`` object (``None`` without one).

    The OpenAI form, ``prompt_tokens``/``completion_tokens`` with the cached part in
    ``prompt_tokens_details.cached_tokens`` (what vLLM and gateways also send), or
    Anthropic's, ``input_tokens``/``output_tokens`` with ``cache_read_input_tokens`` and
    ``cache_creation_input_tokens`` beside ``input_tokens`` (Anthropic does not count them in
    it, so the prompt is their sum). A gateway that sends ``cache_read_input_tokens`` beside
    ``prompt_tokens`` (LiteLLM) counts them in ``prompt_tokens`` already.
    """
    if not isinstance(raw, Mapping):
        return None
    prompt, completion = _count(raw.get("prompt_tokens")), _count(raw.get("completion_tokens"))
    details = raw.get("prompt_tokens_details")
    cached = _count(details.get("cached_tokens")) if isinstance(details, Mapping) else None
    read = _count(raw.get("cache_read_input_tokens"))
    if prompt is None or completion is None:
        # Anthropic's own form: input_tokens excludes what was read from or written to the cache.
        inputs, outputs = _count(raw.get("input_tokens")), _count(raw.get("output_tokens"))
        if inputs is None or outputs is None:
            return None
        written = _count(raw.get("cache_creation_input_tokens")) or 0
        return Usage(inputs + (read or 0) + written, outputs, cached_tokens=read or 0)
    if cached is None:
        cached = read or 0
    return Usage(prompt, completion, cached_tokens=min(cached, prompt))


def _message_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") if isinstance(part, Mapping) else str(part) for part in content
        )
    return str(content)


class ChatCompletionsJudge:
    """Shared logic of the chat-completions judges: request bodies, negotiation, parsing."""

    kind = "openai_compatible"

    def __init__(
        self,
        *,
        model: str,
        base_url: str,
        name: str | None,
        limits: Limits,
        retry_policy: RetryPolicy | None,
        structured_output: StructuredOutput,
        identity: str | None = None,
    ):
        self.endpoint_identity = check_identity(identity, type(self).__name__)
        if structured_output != "auto" and structured_output not in STRUCTURED_MODES:
            raise InvalidInputError(
                f"structured_output must be 'auto' or one of {STRUCTURED_MODES}, "
                f"got {structured_output!r}"
            )
        self.model = model
        self.base_url = base_url
        self.name = name or model
        self.limits = limits
        self.retry_policy = retry_policy or RetryPolicy()
        self.structured_output: StructuredOutput = structured_output

    @property
    def identity(self) -> dict[str, Any]:
        """The non-secret facts that identify the judge in cache keys and manifests.

        ``kind``, ``name``, ``model`` and the endpoint: ``base_url`` (with its port), or the
        ``identity=`` given in its place.
        """
        return client_identity(
            self.kind, self.name, self.base_url, self.model, self.endpoint_identity
        )

    def _capabilities(self) -> dict[str, Any]:
        with _CAPABILITIES_LOCK:
            return dict(
                _CAPABILITIES.get(
                    (self.base_url, self.model),
                    {"mode": "json_schema", "seed": True, "temperature": True},
                )
            )

    def _remember(self, mode: str, seed: bool, temperature: bool) -> None:
        with _CAPABILITIES_LOCK:
            _CAPABILITIES[(self.base_url, self.model)] = {
                "mode": mode,
                "seed": seed,
                "temperature": temperature,
            }

    def capabilities(self) -> dict[str, Any]:
        """What this endpoint was found to accept: structured-output mode, seed, temperature."""
        return self._capabilities()

    def _body(
        self, request: JudgeRequest, mode: str, seed: bool, temperature: bool
    ) -> dict[str, Any]:
        messages = request.message_dicts()
        # Without a schema in response_format the model learns it from the prompt.
        needs_schema_text = request.response_schema is not None and mode in (
            "json_object",
            "prompt",
        )
        if needs_schema_text and not any(SCHEMA_MARKER in m["content"] for m in messages):
            schema_text = json.dumps(request.response_schema, ensure_ascii=False)
            for message in reversed(messages):
                if message["role"] == "user":
                    message["content"] += f"\n\n{SCHEMA_MARKER}\n{schema_text}"
                    break
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if temperature and request.temperature is not None:
            body["temperature"] = request.temperature
        if seed and request.seed is not None:
            body["seed"] = request.seed
        if request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        response_format = _response_format(mode, request)
        if response_format is not None:
            body["response_format"] = response_format
        return body

    async def _post_chat(self, body: dict[str, Any]) -> Mapping[str, Any]:
        raise NotImplementedError

    def request_body(self, request: JudgeRequest) -> dict[str, Any]:
        """The ``/chat/completions`` body this judge would send for ``request`` now: the
        structured-output form, seed and temperature this endpoint was found to take (or the
        forced ``structured_output``). Batch mode writes it as a batch line's ``body``."""
        caps = self._capabilities()
        if request.response_schema is None:
            mode = "prompt"
        elif self.structured_output == "auto":
            mode = str(caps["mode"])
        else:
            mode = self.structured_output
        return self._body(request, mode, bool(caps["seed"]), bool(caps["temperature"]))

    def parse_completion(self, envelope: Mapping[str, Any]) -> JudgeResponse:
        """A chat completion (a batch output line's response body) as a :class:`JudgeResponse`.

        Raises
        ------
        JudgeTransportError
            the body has no ``choices[0].message``.
        """
        return self._parse_envelope(envelope, 0.0, 0, "batch")

    def batch_endpoint(self) -> Any:
        """The endpoint's Batch API (:class:`~ragmeter.judges.clients.batches.BatchEndpoint`),
        or ``None`` when this client cannot reach one (its batch files then run offline)."""
        return None

    @staticmethod
    def _rejected(exc: JudgeTransportError, mode: str, seed: bool, temperature: bool) -> str | None:
        if exc.status is None:
            return None
        body = exc.body.lower()
        client_error = exc.status in (400, 422)
        names_format = any(
            word in body
            for word in ("response_format", "json_schema", "json_object", "grammar", "schema")
        )
        if mode != "prompt" and (client_error or exc.status >= 500) and names_format:
            return "response_format"
        if client_error and seed and "seed" in body:
            return "seed"
        if client_error and temperature and "temperature" in body:
            return "temperature"
        return None

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """The answer to ``request``, negotiating the structured-output form the endpoint takes.

        Raises
        ------
        JudgeTransportError
            the endpoint failed (after the format fallbacks).
        """
        caps = self._capabilities()
        if request.response_schema is None:
            modes: tuple[str, ...] = ("prompt",)
        elif self.structured_output == "auto":
            modes = STRUCTURED_MODES[STRUCTURED_MODES.index(caps["mode"]) :]
        else:
            modes = (self.structured_output,)
        seed, temperature = bool(caps["seed"]), bool(caps["temperature"])
        index = 0
        fallbacks = 0
        started = time.perf_counter()
        while True:
            mode = modes[index]
            try:
                envelope = await self._post_chat(self._body(request, mode, seed, temperature))
            except JudgeTransportError as exc:
                rejected = self._rejected(exc, mode, seed, temperature)
                if rejected == "response_format" and index + 1 < len(modes):
                    index += 1
                elif rejected == "seed":
                    seed = False
                elif rejected == "temperature":
                    temperature = False
                else:
                    raise
                fallbacks += 1
                continue
            if request.response_schema is not None and self.structured_output == "auto":
                self._remember(mode, seed, temperature)
            elif fallbacks:
                self._remember(caps["mode"], seed, temperature)
            return self._parse_envelope(envelope, time.perf_counter() - started, fallbacks, mode)

    def _parse_envelope(
        self, envelope: Mapping[str, Any], latency_s: float, fallbacks: int, mode: str
    ) -> JudgeResponse:
        try:
            choice = envelope["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise JudgeTransportError(
                f"{self.base_url}/chat/completions answered without choices[0].message: "
                f"{str(envelope)[:200]!r}",
                kind="protocol",
                retryable=True,
            ) from None
        raw_usage = envelope.get("usage") if isinstance(envelope, Mapping) else None
        usage = usage_of(raw_usage)
        return JudgeResponse(
            text=_message_text(message.get("content") if isinstance(message, Mapping) else None),
            usage=usage,
            model=envelope.get("model") if isinstance(envelope.get("model"), str) else None,
            finish_reason=choice.get("finish_reason") if isinstance(choice, Mapping) else None,
            latency_s=latency_s,
            extra={"capability_fallbacks": fallbacks, "structured_output": mode},
        )


class OpenAICompatibleJudge(ChatCompletionsJudge):
    """A judge behind any OpenAI-compatible ``/chat/completions`` endpoint, over httpx.

    OpenAI, vLLM, Ollama (``/v1``), llama.cpp's ``llama-server``, llama-cpp-python's server,
    LM Studio or a gateway. Nothing is sent before a call; httpx is the optional extra
    ``ragmeter[judges]``.

    Parameters
    ----------
    base_url
        The server's URL, usually ending in ``/v1``; default ``$OPENAI_BASE_URL``,
        else ``https://api.openai.com/v1``. Credentials in it (``http://user:pw@host``)
        are sent as HTTP Basic auth and never shown.
    model
        The model name the server serves; default ``$RAGMETER_JUDGE_MODEL``.
    api_key
        Default ``$OPENAI_API_KEY``; needed only by api.openai.com. Surrounding
        whitespace (a key read from a file) is stripped; held in a :class:`Secret` that
        never shows in reprs, identities, cache keys, logs, rows or messages.
    name
        Identifies the judge in reports and cache keys (default: the model).
    identity
        Says which model answers, in place of ``base_url`` in cache keys: the cache
        is keyed by the URL with its port, so the same local server restarted on another
        port would be asked everything again; with the same ``identity`` its answers are
        reused. Give the same identity only to the same model (weights, quantisation,
        chat template): the cache cannot tell.
    timeout_s
        Bounds each request as a whole, from connecting to the last byte; the
        time a server keeps a request in its own queue counts. Default 300 s for a server
        on this machine (a small model on a CPU answers in up to a minute or two, and a
        request waits behind the one in progress), 60 s otherwise.
    max_concurrency
        Requests in flight at once; default 2 for a server on this machine
        (local servers usually answer one at a time), 16 otherwise.
    rpm
        At most this many requests started per minute (evenly paced).
    retry_policy
        Transport retries and the ``deadline_s`` of a call
        (:class:`RetryPolicy`).
    structured_output
        ``"auto"`` negotiates the answer format (``json_schema``, then
        llama-cpp-python's ``json_object`` with a schema, then ``json_object``, then the
        schema in the prompt) and remembers what the endpoint takes; or force one.
    headers
        Extra HTTP headers.
    transport
        An ``httpx`` transport to use instead (for example
        ``httpx.MockTransport``).
    lean_transport
        ``True`` (default): a lean HTTP/1.1 transport for direct
        ``http://`` and ``https://`` URLs (far less CPU per call than httpx's);
        ``False``, or a URL behind an environment proxy: httpx's transport. Neither keeps
        connections alive, so a response is never paired with another request.
    verify
        TLS certificate checks: ``True`` (certifi's CAs), ``False``, or an
        ``ssl.SSLContext`` (a private CA).
    max_response_bytes
        The most bytes of an answer's body, as sent and once decompressed
        (default 64 MiB, :data:`~ragmeter.judges.clients.http.DEFAULT_MAX_RESPONSE_BYTES`):
        a longer one is not read further and is a transport error (``kind="protocol"``,
        not retried), so a huge or highly compressed answer cannot fill the memory.

    Raises
    ------
    JudgeConfigurationError
        no model, or api.openai.com without a key.
    InvalidInputError
        a malformed ``base_url`` or key, or a bad option.

    Examples
    --------
    >>> judge = OpenAICompatibleJudge(base_url="http://127.0.0.1:8080/v1", model="qwen2.5-7b",
    ...                               api_key="sk-local-0123456789")
    >>> judge  # doctest: +ELLIPSIS
    OpenAICompatibleJudge(base_url='http://127.0.0.1:8080/v1', ..., api_key='***')
    >>> judge.limits.max_concurrency  # a server on this machine
    2
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | Secret | None = None,
        *,
        name: str | None = None,
        identity: str | None = None,
        timeout_s: float | None = None,
        max_concurrency: int | None = None,
        rpm: float | None = None,
        retry_policy: RetryPolicy | None = None,
        structured_output: StructuredOutput = "auto",
        headers: Mapping[str, str] | None = None,
        transport: Any = None,
        lean_transport: bool = True,
        verify: bool | ssl.SSLContext = True,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    ):
        resolved_url, basic_auth = resolve_endpoint(base_url)
        concurrency = default_concurrency(resolved_url, 16, max_concurrency)
        limits = Limits(max_concurrency=concurrency, rpm=rpm)
        super().__init__(
            model=resolve_judge_model(model, resolved_url if base_url else None, api_key),
            base_url=resolved_url,
            name=name,
            limits=limits,
            retry_policy=retry_policy,
            structured_output=structured_output,
            identity=identity,
        )
        self._api_key = resolve_api_key(api_key, resolved_url, what="OpenAICompatibleJudge")
        self._http = HttpEndpoint(
            resolved_url,
            self._api_key,
            basic_auth=basic_auth,
            timeout_s=default_timeout(resolved_url, timeout_s),
            max_connections=concurrency,
            headers=headers,
            transport=transport,
            purpose="OpenAICompatibleJudge",
            lean_transport=lean_transport,
            verify=verify,
            max_response_bytes=check_max_response_bytes(max_response_bytes),
        )

    def __repr__(self) -> str:
        key = "'***'" if self._api_key else "None"
        return (
            f"OpenAICompatibleJudge(base_url={self.base_url!r}, model={self.model!r}, "
            f"name={self.name!r}, api_key={key})"
        )

    async def _post_chat(self, body: dict[str, Any]) -> Mapping[str, Any]:
        result: Mapping[str, Any] = await self._http.post("chat/completions", body)
        return result

    def batch_endpoint(self) -> BatchEndpoint:
        """The ``/files`` and ``/batches`` routes of this judge's endpoint, with its credentials."""
        return BatchEndpoint(self.base_url, self._http.plain_client)

    async def aclose(self) -> None:
        """Close this event loop's connections (``evaluate`` does at its end)."""
        await self._http.aclose()


class OpenAIClientJudge(ChatCompletionsJudge):
    """A judge that calls ``client.chat.completions.create`` of an ``openai`` client object.

    Works with ``openai.OpenAI`` (run in a worker thread) and ``openai.AsyncOpenAI``. The SDK's
    own retries are switched off so that ragmeter's retry policy is the only one; its timeout
    is the client's own (``deadline_s`` of the :class:`RetryPolicy` still bounds a call).
    Connections are the client's: it is passed to ``evaluate(judge=client)`` as is.

    Parameters
    ----------
    client
        The ``openai`` client object.
    model
        The model name; default ``$RAGMETER_JUDGE_MODEL``.
    name, identity, max_concurrency, rpm, retry_policy, structured_output
        As for
        :class:`OpenAICompatibleJudge`.

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
        max_concurrency: int | None = None,
        rpm: float | None = None,
        retry_policy: RetryPolicy | None = None,
        structured_output: StructuredOutput = "auto",
    ):
        with_options = getattr(client, "with_options", None)
        self._client = with_options(max_retries=0) if callable(with_options) else client
        self._guarded = guard_client(client)
        create = self._client.chat.completions.create
        self._is_async = inspect.iscoroutinefunction(create) or "Async" in type(client).__name__
        base_url = split_credentials(str(getattr(client, "base_url", "openai-client")))[0]
        super().__init__(
            model=resolve_model(model, what="openai client judge"),
            base_url=base_url.rstrip("/"),
            name=name,
            limits=Limits(
                max_concurrency=default_concurrency(base_url, 16, max_concurrency), rpm=rpm
            ),
            retry_policy=retry_policy,
            structured_output=structured_output,
            identity=identity,
        )

    def __repr__(self) -> str:
        return (
            f"OpenAIClientJudge(base_url={self.base_url!r}, model={self.model!r}, "
            f"name={self.name!r})"
        )

    async def _post_chat(self, body: dict[str, Any]) -> Mapping[str, Any]:
        create = self._client.chat.completions.create
        try:
            if self._is_async:
                completion = await create(**body)
            else:
                completion = await asyncio.to_thread(create, **body)
        except Exception as exc:
            raise map_client_error(exc, self.base_url) from None
        dump = getattr(completion, "model_dump", None)
        result: Mapping[str, Any] = dump() if callable(dump) else completion
        return result


def judge_from_env(model: str | None = None) -> OpenAICompatibleJudge:
    """The judge the environment describes (see :class:`OpenAICompatibleJudge`).

    ``RAGMETER_JUDGE_MODEL`` (or ``model``) names the model, ``OPENAI_BASE_URL`` the server,
    ``OPENAI_API_KEY`` the key. ``evaluate(judge=None)`` calls this.

    Raises
    ------
    JudgeConfigurationError
        naming what to set: every variable when nothing is
        configured, only the model when a server or key is.
    """
    return OpenAICompatibleJudge(model=model)
