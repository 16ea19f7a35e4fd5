"""The contracts every judge and embedder satisfies, and adapters for plain callables.

A judge is anything with a ``name`` and an ``async complete(request) -> JudgeResponse``; an
embedder is anything with a ``name`` and an ``async embed(texts) -> list[list[float]]``. The
optional attributes ``identity`` (a dict of non-secret facts that go into cache keys and the
run manifest), ``limits`` (:class:`~ragmeter.judges.limits.Limits`), ``retry_policy``
(:class:`~ragmeter.judges.limits.RetryPolicy`) and ``async aclose()`` are read when present.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from ...exceptions import InputTypeError, InvalidInputError, JudgeTransportError
from ...manifest import ENDPOINT_KEYS, without_endpoints
from .limits import Limits

__all__ = [
    "Embedder",
    "FunctionEmbedder",
    "FunctionJudge",
    "Judge",
    "JudgeRequest",
    "JudgeResponse",
    "Usage",
    "as_embedder",
    "as_judge",
    "check_identity",
    "client_identity",
    "embedder_identity",
    "endpoints",
    "estimate_tokens",
    "judge_identity",
    "manifest_identity",
]


@dataclass(frozen=True)
class Usage:
    """Tokens of one call, from the endpoint's ``usage`` or estimated (``estimated=True``).

    ``cached_tokens`` is the part of ``prompt_tokens`` the provider read from its prompt cache
    (OpenAI's ``prompt_tokens_details.cached_tokens``, Anthropic's
    ``cache_read_input_tokens``), priced apart.
    """

    prompt_tokens: int
    completion_tokens: int
    estimated: bool = False
    cached_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


def estimate_tokens(text: str) -> int:
    """A cheap token estimate, ``ceil(characters / 4)``, used when an endpoint reports no usage."""
    return math.ceil(len(text) / 4)


@dataclass(frozen=True)
class JudgeRequest:
    """One chat request to a judge.

    Attributes
    ----------
    messages
        The chat messages, ``{"role", "content"}`` mappings.
    response_schema
        The JSON Schema the answer must satisfy (``None`` for free text).
    schema_name
        The schema's name for ``response_format`` (letters, digits, ``_``, ``-``).
    strict_schema
        Ask for OpenAI's strict structured output.
    temperature, seed, max_tokens
        Sampling parameters (``None``: not sent).
    n_index
        Distinguishes repeated samples of the same prompt, so that a cache does not
        return one answer for all of them.
    task
        Names the prompt (for logs and test doubles).
    repeat
        Which repeat of ``evaluate(repeats=N)`` asks (0 for the first; a cache keys
        the others apart).
    n_items
        How many items (sentences, claims) the answer labels; 0 for a call that labels
        none (not in cache keys: ``max_tokens`` already follows it).

    Examples
    --------
    >>> request = JudgeRequest(({"role": "user", "content": "Is 2 + 2 = 4?"},))
    >>> request.first_user_message(), request.max_tokens
    ('Is 2 + 2 = 4?', None)
    """

    messages: tuple[Mapping[str, str], ...]
    response_schema: Mapping[str, Any] | None = None
    schema_name: str = "answer"
    strict_schema: bool = False
    temperature: float | None = 0.0
    seed: int | None = 0
    max_tokens: int | None = None
    n_index: int = 0
    task: str = "custom"
    repeat: int = 0
    n_items: int = 0

    def message_dicts(self) -> list[dict[str, str]]:
        """The messages as plain ``{"role", "content"}`` dicts (copies)."""
        return [{"role": m["role"], "content": m["content"]} for m in self.messages]

    def prompt_text(self) -> str:
        """Every message's content, joined by blank lines (for prompt-only callables)."""
        return "\n\n".join(m["content"] for m in self.messages)

    def first_user_message(self) -> str:
        """The task prompt (re-asks append further user messages after it)."""
        for message in self.messages:
            if message["role"] == "user":
                return message["content"]
        return ""

    def last_user_message(self) -> str:
        """The latest user message (a re-ask's correction, else the task prompt)."""
        for message in reversed(self.messages):
            if message["role"] == "user":
                return message["content"]
        return ""


@dataclass(frozen=True)
class JudgeResponse:
    """A judge's answer: the raw text plus what the endpoint reported about the call.

    Attributes
    ----------
    text
        The answer as the model wrote it.
    usage
        Tokens reported by the endpoint (``None``: estimated from the text).
    model
        The model that answered, as reported.
    finish_reason
        ``"stop"``, ``"length"`` (cut off at ``max_tokens``) ...
    latency_s
        Seconds the call took.
    extra
        Endpoint facts (structured-output form used, capability fallbacks).
    """

    text: str
    usage: Usage | None = None
    model: str | None = None
    finish_reason: str | None = None
    latency_s: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class Judge(Protocol):
    """A language model that answers :class:`JudgeRequest` objects.

    Anything with a str ``name`` (it identifies the judge in cache keys and reports) and an
    ``async complete(request)`` is a judge. Optional attributes: ``identity`` (non-secret facts
    for cache keys and manifests), ``limits`` (:class:`Limits`), ``retry_policy``
    (:class:`RetryPolicy`) and ``async aclose()``. Raise
    :class:`~ragmeter.JudgeTransportError` for a failed call, so the engine can retry it.
    """

    name: str

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """The judge's answer to ``request``."""
        ...


@runtime_checkable
class Embedder(Protocol):
    """A text embedding model: one vector per input text, in input order.

    Anything with a str ``name`` and an ``async embed(texts)`` is an embedder; ``identity``,
    ``limits`` and ``retry_policy`` are read as for a :class:`Judge`.
    """

    name: str

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in input order."""
        ...


def judge_identity(judge: Any) -> dict[str, Any]:
    """The non-secret facts that identify a judge in cache keys and manifests."""
    identity = getattr(judge, "identity", None)
    if isinstance(identity, Mapping):
        return dict(identity)
    return {"name": str(getattr(judge, "name", type(judge).__name__))}


def check_identity(identity: Any, what: str) -> str | None:
    """The ``identity=`` of a judge or embedder client: ``None`` or a non-empty str.

    Raises
    ------
    InputTypeError
        not a str.
    InvalidInputError
        an empty or blank str.
    """
    if identity is None:
        return None
    if not isinstance(identity, str):
        raise InputTypeError(
            f"{what}(identity=...) must be a str naming the model behind the endpoint (it "
            f"replaces base_url in cache keys), got {type(identity).__name__} {identity!r}"
        )
    if not identity.strip():
        raise InvalidInputError(
            f"{what}(identity={identity!r}) is blank: give a name that says which model this "
            "is (such as 'qwen2.5-7b-instruct-q4_k_m'), or leave identity=None to key the cache "
            "by base_url"
        )
    return identity.strip()


def client_identity(
    kind: str, name: str, base_url: str, model: str, identity: str | None
) -> dict[str, Any]:
    """The identity dict of an HTTP client: ``identity=``, when given, stands for its URL."""
    endpoint: dict[str, Any] = (
        {"base_url": base_url} if identity is None else {"identity": identity}
    )
    return {"kind": kind, "name": name, **endpoint, "model": model}


def embedder_identity(embedder: Any) -> dict[str, Any]:
    """The non-secret facts that identify an embedder in cache keys and manifests."""
    return judge_identity(embedder)


def manifest_identity(identity: Any) -> Any:
    """The identity a run manifest records for a judge, panel or embedder: its identity
    (:func:`judge_identity`) without where it is served
    (:func:`ragmeter.manifest.without_endpoints`, the one rule). Cache keys keep the URL (see
    :class:`~ragmeter.judges.JudgeCache`)."""
    return without_endpoints(identity)


def endpoints(identity: Any) -> list[str]:
    """The ``base_url`` values inside an identity (at any depth), in order, once each."""
    found: list[str] = []
    if isinstance(identity, Mapping):
        for key, value in identity.items():
            if key in ENDPOINT_KEYS and isinstance(value, str):
                found.append(value)
            else:
                found.extend(endpoints(value))
    elif isinstance(identity, list | tuple):
        for value in identity:
            found.extend(endpoints(value))
    return list(dict.fromkeys(found))


CallableInput = Literal["messages", "prompt", "request"]


def _response_from(value: Any, started: float, loop_time: float) -> JudgeResponse:
    if isinstance(value, JudgeResponse):
        return value
    if isinstance(value, str):
        return JudgeResponse(text=value, latency_s=loop_time - started)
    if isinstance(value, Mapping | list):
        return JudgeResponse(
            text=json.dumps(value, ensure_ascii=False), latency_s=loop_time - started
        )
    raise InputTypeError(
        f"a judge callable must return a str, a dict/list (JSON) or a JudgeResponse, "
        f"got {type(value).__name__}"
    )


class FunctionJudge:
    """A judge backed by a plain sync or async callable (see :func:`as_judge`)."""

    def __init__(
        self,
        fn: Callable[[Any], Any],
        *,
        name: str,
        takes: CallableInput = "messages",
        limits: Limits | None = None,
    ):
        if takes not in ("messages", "prompt", "request"):
            raise InvalidInputError(
                f"takes must be 'messages', 'prompt' or 'request', got {takes!r}"
            )
        self._fn = fn
        self.name = name
        self.takes = takes
        self.limits = limits or Limits(max_concurrency=8)
        self._is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
            type(fn).__call__
        )

    @property
    def identity(self) -> dict[str, Any]:
        """The non-secret facts that identify it in cache keys and manifests."""
        return {"kind": "function", "name": self.name}

    def __repr__(self) -> str:
        return f"FunctionJudge(name={self.name!r}, takes={self.takes!r})"

    def _argument(self, request: JudgeRequest) -> Any:
        if self.takes == "messages":
            return request.message_dicts()
        if self.takes == "prompt":
            return request.prompt_text()
        return request

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """The callable's answer to ``request``."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        argument = self._argument(request)
        try:
            if self._is_async:
                value = await self._fn(argument)
            else:
                value = await asyncio.to_thread(self._fn, argument)
                if inspect.isawaitable(value):
                    value = await value
        except (TimeoutError, ConnectionError) as exc:
            raise JudgeTransportError(
                f"judge {self.name!r} failed: {type(exc).__name__}: {exc}",
                kind="timeout" if isinstance(exc, TimeoutError) else "connection",
                retryable=True,
            ) from exc
        return _response_from(value, started, loop.time())


def as_judge(
    fn: Callable[[Any], Any] | Callable[[Any], Awaitable[Any]],
    *,
    name: str | None = None,
    takes: CallableInput = "messages",
    limits: Limits | None = None,
) -> FunctionJudge:
    """Wrap a sync or async callable as a judge.

    The callable receives the chat messages (``takes="messages"``, a list of
    ``{"role", "content"}`` dicts), the whole prompt as one string (``takes="prompt"``) or the
    :class:`JudgeRequest` (``takes="request"``), and returns the answer text, a dict/list (sent
    on as JSON) or a :class:`JudgeResponse`. Sync callables run in a worker thread. ``name`` goes
    into cache keys: give two different callables two different names. A ``TimeoutError`` or
    ``ConnectionError`` it raises is retried like a transport failure.

    Raises
    ------
    InvalidInputError
        ``fn`` is not callable, or ``takes`` is unknown.

    Examples
    --------
    >>> from ragmeter.judges import RubricMetric, Sample, as_judge, evaluate
    >>> judge = as_judge(lambda prompt: {"value": 1, "reason": "polite"}, name="always-1",
    ...                  takes="prompt")
    >>> polite = RubricMetric("polite", "Is this polite? $answer", allowed_values=[0, 1])
    >>> evaluate([Sample("Hi?", "Hello!")], [polite], judge=judge, progress=False).means()
    {'polite': 1.0}
    """
    if not callable(fn):
        raise InvalidInputError(f"as_judge needs a callable, got {type(fn).__name__}")
    resolved = name or getattr(fn, "__qualname__", None) or type(fn).__name__
    return FunctionJudge(fn, name=str(resolved), takes=takes, limits=limits)


class FunctionEmbedder:
    """An embedder backed by a sync or async callable ``texts -> vectors`` (:func:`as_embedder`)."""

    def __init__(self, fn: Callable[[list[str]], Any], *, name: str, limits: Limits | None = None):
        self._fn = fn
        self.name = name
        self.limits = limits or Limits(max_concurrency=8)
        self._is_async = inspect.iscoroutinefunction(fn)

    @property
    def identity(self) -> dict[str, Any]:
        """The non-secret facts that identify it in cache keys and manifests."""
        return {"kind": "function", "name": self.name}

    def __repr__(self) -> str:
        return f"FunctionEmbedder(name={self.name!r})"

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """The callable's vectors for ``texts``."""
        batch = list(texts)
        if self._is_async:
            vectors = await self._fn(batch)
        else:
            vectors = await asyncio.to_thread(self._fn, batch)
        return [[float(x) for x in vector] for vector in vectors]


def as_embedder(
    fn: Callable[[list[str]], Any], *, name: str | None = None, limits: Limits | None = None
) -> FunctionEmbedder:
    """Wrap a sync or async callable ``list[str] -> list[list[float]]`` as an embedder.

    Sync callables run in a worker thread; ``name`` goes into cache keys.

    Raises
    ------
    InvalidInputError
        ``fn`` is not callable.

    Examples
    --------
    >>> import asyncio
    >>> embedder = as_embedder(lambda texts: [[float(len(t)), 1.0] for t in texts],
    ...                        name="length")
    >>> asyncio.run(embedder.embed(["ab", "abc"]))
    [[2.0, 1.0], [3.0, 1.0]]
    """
    if not callable(fn):
        raise InvalidInputError(f"as_embedder needs a callable, got {type(fn).__name__}")
    resolved = name or getattr(fn, "__qualname__", None) or type(fn).__name__
    return FunctionEmbedder(fn, name=str(resolved), limits=limits)
