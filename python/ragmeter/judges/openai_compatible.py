"""Judges that speak the OpenAI chat-completions protocol, and configuration from the environment.

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
import math
import os
import re
import threading
import time
import weakref
from collections.abc import Mapping
from typing import Any, Literal

from .._optional import import_optional
from ..exceptions import InvalidInputError, JudgeConfigurationError, JudgeTransportError
from .limits import Limits, RetryPolicy, classify_status, parse_retry_after
from .prompts import SCHEMA_MARKER
from .protocol import JudgeRequest, JudgeResponse, Usage
from .transport import make_plain_http_transport, proxy_configured_for

__all__ = [
    "ENV_API_KEY",
    "ENV_BASE_URL",
    "ENV_EMBEDDING_MODEL",
    "ENV_MODEL",
    "OPENAI_BASE_URL",
    "OpenAIClientJudge",
    "OpenAICompatibleJudge",
    "Secret",
    "StructuredOutput",
    "forget_capabilities",
    "judge_from_env",
]

ENV_API_KEY = "OPENAI_API_KEY"
ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_MODEL = "RAGMETER_JUDGE_MODEL"
ENV_EMBEDDING_MODEL = "RAGMETER_EMBEDDING_MODEL"
OPENAI_BASE_URL = "https://api.openai.com/v1"

StructuredOutput = Literal["auto", "json_schema", "json_object_schema", "json_object", "prompt"]
STRUCTURED_MODES: tuple[str, ...] = ("json_schema", "json_object_schema", "json_object", "prompt")

_KEY_PATTERN = re.compile(r"(sk-|Bearer\s+)[A-Za-z0-9_\-*.]{4,}")


class Secret:
    """A string that is never shown: ``repr`` and ``str`` are ``'***'``."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = str(value)

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self._value)


def redact(text: str, secret: Secret | None) -> str:
    """``text`` with the secret and anything shaped like an API key replaced by ``***``."""
    if secret is not None and secret.reveal():
        text = text.replace(secret.reveal(), "***")
    return _KEY_PATTERN.sub(lambda m: m.group(1) + "***", text)


def _env(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def is_openai_url(base_url: str) -> bool:
    return "api.openai.com" in base_url


def resolve_base_url(base_url: str | None) -> str:
    url = (base_url or _env(ENV_BASE_URL) or OPENAI_BASE_URL).strip()
    if not re.match(r"^https?://", url):
        raise InvalidInputError(
            f"base_url must start with http:// or https://, got {url!r} "
            "(for example http://127.0.0.1:8000/v1)"
        )
    return url.rstrip("/")


def resolve_api_key(api_key: str | Secret | None, base_url: str, *, what: str) -> Secret | None:
    if isinstance(api_key, Secret):
        return api_key
    key = api_key or _env(ENV_API_KEY)
    if key is None and is_openai_url(base_url):
        raise JudgeConfigurationError(
            f"{what} talks to {base_url} but no API key is set: pass api_key=... or set "
            f"{ENV_API_KEY}; for a local OpenAI-compatible server set {ENV_BASE_URL} "
            "(for example http://127.0.0.1:8000/v1) instead"
        )
    return Secret(key) if key else None


NO_JUDGE_MESSAGE = (
    "No LLM judge is configured. Pass judge= (an OpenAICompatibleJudge, an openai.OpenAI client "
    f"or any callable), or set the environment variables {ENV_MODEL}=<model name> and either "
    f"{ENV_API_KEY}=<key> (for api.openai.com) or {ENV_BASE_URL}=<http://host:port/v1> (for a "
    "local or other OpenAI-compatible server)."
)


def resolve_model(model: str | None, *, env: str = ENV_MODEL, what: str = "judge") -> str:
    resolved = model or _env(env)
    if not resolved:
        if env == ENV_MODEL and what == "judge":
            raise JudgeConfigurationError(NO_JUDGE_MESSAGE)
        raise JudgeConfigurationError(
            f"No model is configured for the {what}: pass model=... or set {env}=<model name>"
        )
    return resolved


# Structured-output capabilities learned per (base_url, model), shared by every judge instance.
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
    ):
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
        return {
            "kind": self.kind,
            "name": self.name,
            "base_url": self.base_url,
            "model": self.model,
        }

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
        usage = None
        raw_usage = envelope.get("usage") if isinstance(envelope, Mapping) else None
        if isinstance(raw_usage, Mapping):
            prompt = raw_usage.get("prompt_tokens")
            completion = raw_usage.get("completion_tokens")
            if isinstance(prompt, int) and isinstance(completion, int):
                usage = Usage(prompt, completion)
        return JudgeResponse(
            text=_message_text(message.get("content") if isinstance(message, Mapping) else None),
            usage=usage,
            model=envelope.get("model") if isinstance(envelope.get("model"), str) else None,
            finish_reason=choice.get("finish_reason") if isinstance(choice, Mapping) else None,
            latency_s=latency_s,
            extra={"capability_fallbacks": fallbacks, "structured_output": mode},
        )


_SSL_CONTEXT: Any = None


def _shared_ssl_context(httpx: Any) -> Any:
    """One default SSL context for every client of the process (certificate checks stay on)."""
    global _SSL_CONTEXT
    if _SSL_CONTEXT is None:
        _SSL_CONTEXT = httpx.create_ssl_context()
    return _SSL_CONTEXT


class _Shards:
    """httpx clients of one event loop, with the number of requests each has in flight."""

    def __init__(self, clients: list[Any], plain_transport: Any = None):
        self.clients = clients
        self.in_flight = [0] * len(clients)
        self.plain_transport = plain_transport

    def least_busy(self) -> int:
        return min(range(len(self.clients)), key=self.in_flight.__getitem__)


class HttpEndpoint:
    """httpx clients for an OpenAI-compatible base URL, one set per event loop.

    Plain ``http://`` URLs (local servers) use :mod:`ragmeter.judges.transport`'s lean
    HTTP/1.1 transport unless ``plain_http=False`` or an environment proxy applies. Other URLs
    use httpx's transport, sharded: httpcore's pool scans every connection on every request,
    so one pool of 32 connections costs several times the CPU of eight pools of four; requests
    go to the least busy shard. All clients share one SSL context (loading the CA bundle costs
    ~0.1 s per client).
    """

    CONNECTIONS_PER_SHARD = 4

    def __init__(
        self,
        base_url: str,
        api_key: Secret | None,
        *,
        timeout_s: float,
        max_connections: int,
        headers: Mapping[str, str] | None,
        transport: Any,
        purpose: str,
        plain_http: bool = True,
    ):
        self.base_url = base_url
        self._api_key = api_key
        self.timeout_s = timeout_s
        self._max_connections = max_connections
        self._headers = dict(headers or {})
        self._transport = transport
        self._purpose = purpose
        self._ssl_context: Any = None
        self._httpx_module: Any = None
        self._urls: dict[str, Any] = {}
        self.uses_plain_http_transport = (
            plain_http
            and transport is None
            and base_url.startswith("http://")
            and not proxy_configured_for(base_url)
        )
        self._shards: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Shards] = (
            weakref.WeakKeyDictionary()
        )

    def _new_client(self, httpx: Any, connections: int, transport: Any = None) -> Any:
        headers = {"Content-Type": "application/json", **self._headers}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key.reveal()}"
        if self._ssl_context is None and transport is None:
            self._ssl_context = _shared_ssl_context(httpx)
        return httpx.AsyncClient(
            base_url=self.base_url + "/",
            headers=headers,
            timeout=httpx.Timeout(self.timeout_s),
            limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
            transport=transport if transport is not None else self._transport,
            verify=self._ssl_context if self._ssl_context is not None else True,
        )

    def _httpx(self) -> Any:
        if self._httpx_module is None:
            self._httpx_module = import_optional("httpx", extra="judges", purpose=self._purpose)
        return self._httpx_module

    def _loop_shards(self) -> _Shards:
        httpx = self._httpx()
        loop = asyncio.get_running_loop()
        shards = self._shards.get(loop)
        if shards is None or any(c.is_closed for c in shards.clients):
            if self.uses_plain_http_transport:
                transport = make_plain_http_transport(httpx, max_connections=self._max_connections)
                client = self._new_client(httpx, self._max_connections, transport)
                shards = _Shards([client], plain_transport=transport)
                self._shards[loop] = shards
                return shards
            per_shard = self.CONNECTIONS_PER_SHARD
            count = (
                1 if self._transport is not None else math.ceil(self._max_connections / per_shard)
            )
            size = self._max_connections if count == 1 else per_shard
            shards = _Shards([self._new_client(httpx, size) for _ in range(count)])
            self._shards[loop] = shards
        return shards

    async def post(self, path: str, body: Mapping[str, Any]) -> Any:
        httpx = self._httpx()
        url = f"{self.base_url}/{path}"
        target = self._urls.get(path)
        if target is None:
            target = self._urls[path] = httpx.URL(url)
        shards = self._loop_shards()
        index = shards.least_busy()
        shards.in_flight[index] += 1
        try:
            if shards.plain_transport is not None:
                # The lean transport directly: the client's cookie, redirect and auth handling
                # (none of which a judge call uses) cost more CPU than the exchange itself.
                request = httpx.Request(
                    "POST",
                    target,
                    headers=shards.clients[index].headers,
                    content=json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode(),
                    extensions={"timeout": httpx.Timeout(self.timeout_s).as_dict()},
                )
                response = await shards.plain_transport.handle_async_request(request)
            else:
                response = await shards.clients[index].post(target, json=body)
        except httpx.TimeoutException as exc:
            raise JudgeTransportError(
                f"{url} did not answer within {self.timeout_s} s ({type(exc).__name__})",
                kind="timeout",
                retryable=True,
            ) from None
        except httpx.TransportError as exc:
            raise JudgeTransportError(
                f"{url} could not be reached: {type(exc).__name__}: "
                f"{redact(str(exc), self._api_key)}",
                kind="connection",
                retryable=True,
            ) from None
        finally:
            shards.in_flight[index] -= 1
        if response.status_code != 200:
            text = redact(response.text, self._api_key)
            retryable, fatal = classify_status(response.status_code, text)
            hint = ""
            if response.status_code in (401, 403):
                hint = f" (check api_key= or {ENV_API_KEY})"
            elif response.status_code == 404:
                hint = " (check base_url, which usually ends in /v1, and the model name)"
            raise JudgeTransportError(
                f"{url} answered HTTP {response.status_code}{hint}: {text[:300]}",
                status=response.status_code,
                retryable=retryable,
                fatal=fatal,
                retry_after=parse_retry_after(response.headers),
                body=text[:2000],
            )
        try:
            return response.json()
        except ValueError:
            raise JudgeTransportError(
                f"{url} answered HTTP 200 with a body that is not JSON: "
                f"{redact(response.text[:200], self._api_key)!r}",
                kind="protocol",
                retryable=True,
            ) from None

    async def aclose(self) -> None:
        """Close the clients of the running event loop (others close with their loops)."""
        shards = self._shards.pop(asyncio.get_running_loop(), None)
        for client in shards.clients if shards is not None else ():
            await client.aclose()


class OpenAICompatibleJudge(ChatCompletionsJudge):
    """A judge behind any OpenAI-compatible ``/chat/completions`` endpoint, over httpx.

    ``base_url`` defaults to ``$OPENAI_BASE_URL``, else ``https://api.openai.com/v1``;
    ``model`` to ``$RAGMETER_JUDGE_MODEL``; ``api_key`` to ``$OPENAI_API_KEY`` (required only
    for api.openai.com). ``name`` (default: the model) identifies the judge in reports and
    cache keys. At most ``max_concurrency`` requests are in flight and, with ``rpm``, at most
    ``rpm`` start per minute; ``retry_policy`` governs transport retries; ``timeout_s`` bounds
    each request; ``structured_output`` forces one answer format instead of negotiating.
    ``transport`` is passed to ``httpx.AsyncClient`` (for example ``httpx.MockTransport``);
    without one, ``http://`` URLs use a lean HTTP/1.1 transport (~20x less CPU per call than
    httpx's default, see :mod:`ragmeter.judges.transport`) unless ``plain_http=False``.
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | Secret | None = None,
        *,
        name: str | None = None,
        timeout_s: float = 60.0,
        max_concurrency: int = 16,
        rpm: float | None = None,
        retry_policy: RetryPolicy | None = None,
        structured_output: StructuredOutput = "auto",
        headers: Mapping[str, str] | None = None,
        transport: Any = None,
        plain_http: bool = True,
    ):
        resolved_url = resolve_base_url(base_url)
        limits = Limits(max_concurrency=max_concurrency, rpm=rpm)
        super().__init__(
            model=resolve_model(model),
            base_url=resolved_url,
            name=name,
            limits=limits,
            retry_policy=retry_policy,
            structured_output=structured_output,
        )
        self._api_key = resolve_api_key(api_key, resolved_url, what="OpenAICompatibleJudge")
        self._http = HttpEndpoint(
            resolved_url,
            self._api_key,
            timeout_s=timeout_s,
            max_connections=max_concurrency,
            headers=headers,
            transport=transport,
            purpose="OpenAICompatibleJudge",
            plain_http=plain_http,
        )

    def __repr__(self) -> str:
        key = "'***'" if self._api_key else "None"
        return (
            f"OpenAICompatibleJudge(base_url={self.base_url!r}, model={self.model!r}, "
            f"name={self.name!r}, api_key={key})"
        )

    async def _post_chat(self, body: dict[str, Any]) -> Mapping[str, Any]:
        return await self._http.post("chat/completions", body)

    async def aclose(self) -> None:
        await self._http.aclose()


def _map_client_error(exc: Exception, base_url: str) -> JudgeTransportError:
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    text = redact(str(getattr(exc, "message", "") or exc), None)
    if isinstance(status, int):
        retryable, fatal = classify_status(status, text)
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", {}) or {}
        return JudgeTransportError(
            f"{base_url}/chat/completions answered HTTP {status}: {text[:300]}",
            status=status,
            retryable=retryable,
            fatal=fatal,
            retry_after=parse_retry_after(dict(headers)),
            body=text[:2000],
        )
    if "Timeout" in name:
        return JudgeTransportError(
            f"{base_url} did not answer in time ({name})", kind="timeout", retryable=True
        )
    if "Connection" in name:
        return JudgeTransportError(
            f"{base_url} could not be reached ({name}: {text[:200]})",
            kind="connection",
            retryable=True,
        )
    return JudgeTransportError(f"{base_url}: {name}: {text[:300]}", kind="client")


class OpenAIClientJudge(ChatCompletionsJudge):
    """A judge that calls ``client.chat.completions.create`` of an ``openai`` client object.

    Works with ``openai.OpenAI`` (run in a worker thread) and ``openai.AsyncOpenAI``. The SDK's
    own retries are switched off so that ragmeter's retry policy is the only one.
    """

    kind = "openai_client"

    def __init__(
        self,
        client: Any,
        model: str | None = None,
        *,
        name: str | None = None,
        max_concurrency: int = 16,
        rpm: float | None = None,
        retry_policy: RetryPolicy | None = None,
        structured_output: StructuredOutput = "auto",
    ):
        with_options = getattr(client, "with_options", None)
        self._client = with_options(max_retries=0) if callable(with_options) else client
        create = self._client.chat.completions.create
        self._is_async = inspect.iscoroutinefunction(create) or "Async" in type(client).__name__
        super().__init__(
            model=resolve_model(model, what="openai client judge"),
            base_url=str(getattr(client, "base_url", "openai-client")).rstrip("/"),
            name=name,
            limits=Limits(max_concurrency=max_concurrency, rpm=rpm),
            retry_policy=retry_policy,
            structured_output=structured_output,
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
            raise _map_client_error(exc, self.base_url) from None
        dump = getattr(completion, "model_dump", None)
        return dump() if callable(dump) else completion


def is_openai_client(obj: Any) -> bool:
    module = type(obj).__module__ or ""
    return module.split(".")[0] == "openai" and hasattr(obj, "chat")


def judge_from_env(model: str | None = None) -> OpenAICompatibleJudge:
    """The judge the environment describes (see :class:`OpenAICompatibleJudge`).

    Raises :class:`~ragmeter.JudgeConfigurationError` naming the variables to set when no model
    is given and ``RAGMETER_JUDGE_MODEL`` is unset.
    """
    return OpenAICompatibleJudge(model=resolve_model(model))
