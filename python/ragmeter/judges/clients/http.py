"""HTTP endpoints of OpenAI-compatible servers: POST JSON, get JSON, or a typed transport error.

Endpoints reached directly (``http://`` and ``https://``) use the lean transport of
:mod:`ragmeter.judges.clients.transport`; endpoints behind an environment proxy, or with
``lean_transport=False``, use httpx's transport. Neither keeps connections alive: a stale extra
response left on a kept-alive connection cannot be told from the answer to the next request, so
each request has its own connection and reads only its own answer. A
``transport`` given by the caller (for example ``httpx.MockTransport``) is used as is.

``timeout_s`` bounds a whole request, from connecting to the last byte of the body, whatever the
transport: a server that drips its answer one byte at a time cannot hold a call beyond it.
``max_response_bytes`` (default :data:`DEFAULT_MAX_RESPONSE_BYTES`, 64 MiB) bounds an answer's
body both as sent and decompressed: a longer body is not read further, and a compressed one
(``gzip``, ``deflate``: the only encodings asked for) is inflated at most that far, so a small
compressed answer cannot fill the memory. Of an error's body, the first
:data:`SHOWN_ERROR_CHARS` characters are kept, cut before any secret is redacted from them.
"""

from __future__ import annotations

import asyncio
import json
import socket
import ssl
import weakref
import zlib
from collections.abc import Mapping
from typing import Any

from ..._optional import import_optional
from ...exceptions import InvalidInputError, JudgeTransportError
from .environment import ENV_API_KEY
from .limits import classify_status, parse_retry_after
from .secrets import Secret, guard_library_logs, redact
from .transport import ResponseTooLarge, make_lean_transport, proxy_configured_for

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "SHOWN_ERROR_CHARS",
    "HttpEndpoint",
    "check_max_response_bytes",
]

#: The most bytes of an answer's body, as sent and decompressed (``max_response_bytes``):
#: an embeddings answer of 256 vectors of 4,096 dimensions is about 23 MB of JSON; a chat
#: answer, a few kilobytes.
DEFAULT_MAX_RESPONSE_BYTES = 64 * 2**20
#: Characters of an error's body kept for the message and the error (after the cut, secrets
#: are redacted from them: redacting first costs 1-2 s per MB of body).
SHOWN_ERROR_CHARS = 2000


def check_max_response_bytes(value: object) -> int:
    """``max_response_bytes`` checked: a whole number of at least 1,024 bytes."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1024:
        raise InvalidInputError(
            f"max_response_bytes: must be a whole number of bytes, at least 1024 (default "
            f"{DEFAULT_MAX_RESPONSE_BYTES:,}), got {str(value)[:40]!r}"
        )
    return value


#: The encodings asked for (``Accept-Encoding``), the only ones decoded.
_ACCEPTED_ENCODINGS = "gzip, deflate"

# What the judges post: compact JSON, made by one encoder (json.dumps builds one per call).
_BODY_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))

_SHARED_SSL_CONTEXT: ssl.SSLContext | None = None


def _default_ssl_context(httpx: Any) -> ssl.SSLContext:
    """One default SSL context for the process (loading the CA bundle costs ~0.1 s)."""
    global _SHARED_SSL_CONTEXT
    if _SHARED_SSL_CONTEXT is None:
        _SHARED_SSL_CONTEXT = httpx.create_ssl_context()
    return _SHARED_SSL_CONTEXT


_NO_EMBEDDINGS_HINT = (
    " (this server serves no embeddings: start it with embeddings enabled (llama-cpp-python: "
    "--embedding true; llama.cpp's llama-server: --embeddings --pooling mean) or give the "
    "embedder the URL of an embeddings server, e.g. OpenAICompatibleEmbedder(base_url=...) or "
    "AnswerRelevanceConfig(embeddings_base_url=...))"
)

# Bodies of servers that answer /embeddings with a 5xx when they were started without them.
_NO_EMBEDDINGS_BODIES = ("must be created with embedding=true",)


def _serves_no_embeddings(body: str) -> bool:
    """Whether an error body says the server was started without embeddings."""
    lowered = body.lower()
    return any(marker in lowered for marker in _NO_EMBEDDINGS_BODIES)


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    return any(isinstance(e, kind) for e in _chain(exc))


def _root_cause(exc: BaseException) -> str:
    return str(_chain(exc)[-1])


class _LoopClient:
    """What one event loop uses to talk to the endpoint."""

    def __init__(self, client: Any, lean_transport: Any = None):
        self.client = client
        self.lean_transport = lean_transport
        # Per path, for the lean transport: where to connect, and the headers httpx's request
        # would carry, split around its Content-Length (None: build httpx's request each time).
        self.heads: dict[str, _LeanHead | None] = {}


class _LeanHead:
    """The head of a POST as httpx would build it for the lean transport, for any body."""

    __slots__ = ("after", "before", "host", "length_name", "port", "scheme", "target")

    def __init__(self, request: Any):
        url = request.url
        self.scheme, self.host, self.target = url.scheme, url.host, url.raw_path
        self.port = url.port or (443 if url.scheme == "https" else 80)
        raw = list(request.headers.raw)
        (at,) = [i for i, (name, _) in enumerate(raw) if name.lower() == b"content-length"]
        self.before, self.length_name, self.after = raw[:at], raw[at][0], raw[at + 1 :]

    def payload(self, transport: Any, content: bytes) -> bytes:
        headers = [*self.before, (self.length_name, b"%d" % len(content)), *self.after]
        return transport.request_head("POST", self.target, headers) + content  # type: ignore[no-any-return]


def _lean_head(httpx: Any, loop_client: _LoopClient, path: str, target: Any) -> _LeanHead | None:
    """The :class:`_LeanHead` of ``path`` (made once per loop client); ``None`` when httpx's
    request for it has not exactly one Content-Length (then it is built for every call)."""
    if path in loop_client.heads:
        return loop_client.heads[path]
    probe = httpx.Request("POST", target, headers=loop_client.client.headers, content=b"{}")
    try:
        head: _LeanHead | None = _LeanHead(probe)
    except ValueError:
        head = None
    loop_client.heads[path] = head
    return head


def _encoded(response: list[tuple[bytes, bytes]]) -> bool:
    """Whether a response's raw headers name a Content-Encoding."""
    return any(name.lower() == b"content-encoding" for name, _ in response)


class _Undecodable(Exception):
    """A body in an encoding not asked for, or damaged."""


def _inflate(data: bytes, wbits: int, limit: int) -> bytes:
    """``data`` decompressed by zlib (``wbits``: gzip, zlib or raw deflate), member after
    member, never more than ``limit`` bytes (:class:`ResponseTooLarge` past it)."""
    out: list[bytes] = []
    total = 0
    while data:
        inflater = zlib.decompressobj(wbits)
        try:
            piece = inflater.decompress(data, limit - total + 1)
        except zlib.error as exc:
            raise _Undecodable(f"a damaged compressed body ({exc})") from None
        total += len(piece)
        if total > limit or inflater.unconsumed_tail:
            raise ResponseTooLarge(limit, "once decompressed")
        if not inflater.eof:
            raise _Undecodable("a compressed body cut short")
        out.append(piece)
        data = inflater.unused_data
    return b"".join(out)


def _decoded(raw: bytes, headers: list[tuple[bytes, bytes]], limit: int) -> bytes:
    """The body ``raw`` decoded as its Content-Encoding says (several are undone last first),
    at most ``limit`` bytes."""
    codings = [
        coding.strip().lower()
        for name, value in headers
        if name.lower() == b"content-encoding"
        for coding in value.decode("latin-1").split(",")
        if coding.strip()
    ]
    for coding in reversed(codings):
        if coding == "identity":
            continue
        if coding in ("gzip", "x-gzip"):
            raw = _inflate(raw, zlib.MAX_WBITS | 16, limit)
        elif coding == "deflate":
            # zlib-wrapped, as HTTP says; some servers send raw deflate (httpx reads both).
            try:
                raw = _inflate(raw, zlib.MAX_WBITS, limit)
            except _Undecodable:
                raw = _inflate(raw, -zlib.MAX_WBITS, limit)
        else:
            raise _Undecodable(
                f"a body in Content-Encoding {coding!r}, which was not asked for "
                f"(Accept-Encoding: {_ACCEPTED_ENCODINGS})"
            )
    return raw


async def _read_capped(pieces: Any, limit: int) -> bytes:
    """The raw bytes of a streamed body, at most ``limit`` (:class:`ResponseTooLarge`)."""
    out = bytearray()
    async for piece in pieces:
        out += piece
        if len(out) > limit:
            raise ResponseTooLarge(limit, f"{len(out):,} bytes so far")
    return bytes(out)


async def _whole(body: bytes) -> Any:
    yield body


def _shown(body: bytes) -> str:
    """The start of an error's body as text, cut first and then redacted."""
    text = body[: 4 * SHOWN_ERROR_CHARS].decode("utf-8", "replace")[:SHOWN_ERROR_CHARS]
    return redact(text)


class HttpEndpoint:
    """POSTs JSON to ``base_url/<path>`` and returns the decoded JSON answer.

    Raises :class:`~ragmeter.JudgeTransportError` for every failure: ``kind="timeout"`` (the
    whole request took longer than ``timeout_s``), ``"connect"`` (refused or TLS failure:
    retried, then fatal; an unknown host: fatal at once), ``"connection"`` (broken
    mid-request), ``"http"`` (a status other than 200, with ``retryable`` and ``fatal`` set by
    :func:`~ragmeter.judges.clients.limits.classify_status`) or ``"protocol"`` (a 200 whose
    body is not JSON, a body longer than ``max_response_bytes`` as sent or decompressed, or in
    an encoding not asked for).
    """

    def __init__(
        self,
        base_url: str,
        api_key: Secret | None,
        *,
        basic_auth: Secret | None = None,
        timeout_s: float,
        max_connections: int,
        headers: Mapping[str, str] | None,
        transport: Any,
        purpose: str,
        lean_transport: bool = True,
        verify: bool | ssl.SSLContext = True,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    ):
        self.base_url = base_url
        self.max_response_bytes = max_response_bytes
        self._api_key = api_key
        self._basic_auth = basic_auth
        self.timeout_s = timeout_s
        self._max_connections = max_connections
        self._headers = dict(headers or {})
        self._transport = transport
        self._purpose = purpose
        self._verify = verify
        self._httpx_module: Any = None
        self._urls: dict[str, Any] = {}
        self.in_flight = 0
        self.uses_lean_transport = (
            lean_transport
            and transport is None
            and base_url.startswith(("http://", "https://"))
            and not proxy_configured_for(base_url)
        )
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopClient] = (
            weakref.WeakKeyDictionary()
        )

    def _httpx(self) -> Any:
        if self._httpx_module is None:
            self._httpx_module = import_optional("httpx", extra="judges", purpose=self._purpose)
        return self._httpx_module

    def _ssl_context(self, httpx: Any) -> ssl.SSLContext:
        if isinstance(self._verify, ssl.SSLContext):
            return self._verify
        if self._verify is False:
            return httpx.create_ssl_context(verify=False)  # type: ignore[no-any-return]
        return _default_ssl_context(httpx)

    def _request_headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept-Encoding": _ACCEPTED_ENCODINGS,
            **self._headers,
        }
        if self._basic_auth:
            headers["Authorization"] = self._basic_auth.reveal()
        elif self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key.reveal()}"
        return headers

    def _loop_client(self) -> _LoopClient:
        httpx = self._httpx()
        guard_library_logs()
        loop = asyncio.get_running_loop()
        current = self._loops.get(loop)
        if current is not None and not current.client.is_closed:
            return current
        lean = None
        if self.uses_lean_transport:
            lean = make_lean_transport(
                httpx,
                max_connections=self._max_connections,
                ssl_context=self._ssl_context(httpx)
                if self.base_url.startswith("https://")
                else None,
                max_body=self.max_response_bytes,
            )
        # Without keep-alive on httpx's transport: each request gets its own connection, so no
        # response left over on a connection can be read as the answer to another request.
        keepalive = self._max_connections if self._transport is not None else 0
        client = httpx.AsyncClient(
            base_url=self.base_url + "/",
            headers=self._request_headers(),
            timeout=httpx.Timeout(self.timeout_s),
            limits=httpx.Limits(
                max_connections=self._max_connections, max_keepalive_connections=keepalive
            ),
            transport=lean if lean is not None else self._transport,
            verify=self._ssl_context(httpx),
        )
        current = _LoopClient(client, lean)
        self._loops[loop] = current
        return current

    async def post(self, path: str, body: Mapping[str, Any]) -> Any:
        """The JSON answer of ``POST base_url/path`` with ``body``."""
        httpx = self._httpx()
        url = f"{self.base_url}/{path}"
        target = self._urls.get(path)
        if target is None:
            target = self._urls[path] = httpx.URL(url)
        loop_client = self._loop_client()
        self.in_flight += 1
        in_flight = self.in_flight
        lean = loop_client.lean_transport
        limit = self.max_response_bytes
        try:
            async with asyncio.timeout(self.timeout_s):
                if lean is not None:
                    # The lean transport directly, with the bytes httpx's request would send
                    # and without httpx's request and response objects: the client's cookie,
                    # redirect and auth handling (none of which a judge call uses) cost more
                    # CPU than the exchange itself. The timeout above bounds every phase.
                    content = _BODY_ENCODER.encode(body).encode()
                    head = _lean_head(httpx, loop_client, path, target)
                    if head is not None:
                        where = (head.scheme, head.host, head.port)
                        payload = head.payload(lean, content)
                    else:
                        request = httpx.Request(
                            "POST", target, headers=loop_client.client.headers, content=content
                        )
                        where = (target.scheme, target.host, target.port or 0)
                        if not where[2]:
                            where = (where[0], where[1], 443 if where[0] == "https" else 80)
                        payload = (
                            lean.request_head("POST", target.raw_path, request.headers.raw)
                            + content
                        )
                    status, _, raw_headers, raw = await lean.exchange(
                        *where,
                        "POST",
                        payload,
                        connect_timeout=None,
                        read_timeout=None,
                        write_timeout=None,
                    )
                else:
                    stream = loop_client.client.stream("POST", target, json=body)
                    async with stream as streamed:
                        status, raw_headers = streamed.status_code, list(streamed.headers.raw)
                        if streamed.is_stream_consumed:
                            # A body the transport gave whole (httpx.MockTransport), which
                            # httpx has decoded already.
                            raw = await _read_capped(_whole(streamed.content), limit)
                            raw_headers = [h for h in raw_headers if not _encoded([h])]
                        else:
                            length = streamed.headers.get("content-length", "")
                            if length.isdigit() and int(length) > limit:
                                raise ResponseTooLarge(limit, f"Content-Length {int(length):,}")
                            # The raw bytes, bounded as they arrive; decoded below, bounded.
                            raw = await _read_capped(streamed.aiter_raw(), limit)
                if status == 200 and not _encoded(raw_headers):
                    try:
                        return json.loads(raw)
                    except ValueError:
                        pass  # said below, as for any other body that is not JSON
                answer = _decoded(raw, raw_headers, limit)
        except (TimeoutError, httpx.TimeoutException) as exc:
            raise JudgeTransportError(
                f"{url} did not answer within timeout_s={self.timeout_s:g} s "
                f"({type(exc).__name__}; {in_flight} request(s) to this endpoint were in "
                "flight). The time includes any wait in the server's own queue: a server that "
                "answers one request at a time needs a lower max_concurrency or a larger "
                "timeout_s",
                kind="timeout",
                retryable=True,
            ) from None
        except ResponseTooLarge as exc:
            raise JudgeTransportError(
                f"{url} answered with {exc}: max_response_bytes={limit:,} bounds an answer "
                "(as sent and decompressed); raise it if the endpoint's answers are meant to "
                "be this large",
                kind="protocol",
            ) from None
        except _Undecodable as exc:
            raise JudgeTransportError(
                f"{url} answered with {exc}", kind="protocol", retryable=True
            ) from None
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            if _caused_by(exc, socket.gaierror):
                raise JudgeTransportError(
                    f"{url} could not be reached: the host {target.host!r} is unknown (DNS: "
                    f"{_root_cause(exc)}); check base_url",
                    kind="connect",
                    fatal=True,
                ) from None
            raise JudgeTransportError(
                f"{url} could not be reached: {type(exc).__name__}: {redact(str(exc))}",
                kind="connect",
                retryable=True,
            ) from None
        except httpx.TransportError as exc:
            raise JudgeTransportError(
                f"{url} broke off the exchange: {type(exc).__name__}: {redact(str(exc))}",
                kind="connection",
                retryable=True,
            ) from None
        finally:
            self.in_flight -= 1
        if status != 200:
            # Cut first, then redact: redacting a 20 MB body took 20 s, on the event loop.
            text = _shown(answer)
            retryable, fatal = classify_status(status, text)
            hint = ""
            if status in (401, 403):
                hint = f" (check api_key= or {ENV_API_KEY})"
            elif path == "embeddings" and (
                status in (404, 405, 501) or _serves_no_embeddings(text)
            ):
                hint = _NO_EMBEDDINGS_HINT
                if _serves_no_embeddings(text):
                    # The server answers every embeddings call alike: no retry can fix it.
                    retryable, fatal = False, True
            elif status == 404:
                hint = " (check base_url, which usually ends in /v1, and the model name)"
            raise JudgeTransportError(
                f"{url} answered HTTP {status}{hint}: {text[:300]}",
                status=status,
                retryable=retryable,
                fatal=fatal,
                retry_after=parse_retry_after(httpx.Headers(raw_headers)),
                body=text,
            )
        try:
            return json.loads(answer)
        except ValueError:
            raise JudgeTransportError(
                f"{url} answered HTTP 200 with a body that is not JSON: "
                f"{_shown(answer[:800])[:200]!r}",
                kind="protocol",
                retryable=True,
            ) from None

    def plain_client(self) -> Any:
        """A new ``httpx.AsyncClient`` on ``base_url`` with this endpoint's credentials, headers,
        TLS settings, timeout and transport, for the calls that are not JSON POSTs (batch files
        and their status, :mod:`ragmeter.judges.clients.batches`). The caller closes it."""
        httpx = self._httpx()
        guard_library_logs()
        headers = {k: v for k, v in self._request_headers().items() if k.lower() != "content-type"}
        return httpx.AsyncClient(
            base_url=self.base_url + "/",
            headers=headers,
            timeout=httpx.Timeout(self.timeout_s),
            transport=self._transport,
            verify=self._ssl_context(httpx),
        )

    async def aclose(self) -> None:
        """Close the connections of the running event loop (others close with their loops)."""
        current = self._loops.pop(asyncio.get_running_loop(), None)
        if current is not None:
            await current.client.aclose()
