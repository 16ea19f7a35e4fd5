"""A lean HTTP/1.1 transport for httpx, used for judge endpoints reached without a proxy.

Local inference servers (vLLM, Ollama, llama.cpp) answer short judge prompts in tens of
milliseconds to many concurrent requests, and there httpx's default transport is the
bottleneck: on a 2-core machine httpcore's pool, anyio and h11 cost about 4 ms of CPU per
request, against about 0.2 ms for a keep-alive HTTP/1.1 exchange over asyncio streams. This
transport does that exchange behind httpx's client API (requests, responses, timeouts,
exceptions stay httpx's), over TCP for ``http://`` and TLS for ``https://`` URLs, with
Content-Length or chunked bodies. Endpoints behind an environment proxy keep httpx's transport.

Pairing is certain: HTTP/1.1 has no request ids, so a response belongs to a request only by
its order on the connection, and a server or proxy that sends one response too many can do so
at any moment, even after a check for unread bytes. So by default every request has its own
connection (``Connection: close``): the only response it can read is the answer to it. With
``keep_alive=True`` (faster for many short requests over TLS) a connection is put back for
reuse only after a complete, explicitly framed response with nothing after it, and reused only
if nothing arrived while it was idle, which catches a stale response that has arrived, not one
still on its way.
"""

from __future__ import annotations

import asyncio
import ssl
import time
import urllib.request
from collections import deque
from collections.abc import Iterable
from typing import Any

__all__ = ["ResponseTooLarge", "make_lean_transport", "proxy_configured_for"]

_MAX_HEAD = 64 * 1024
_NO_BODY_STATUSES = frozenset({204, 304})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_TRANSPORT_CLASS: Any = None


def proxy_configured_for(url: str) -> bool:
    """Whether the environment routes ``url`` through a proxy (then httpx's transport is used)."""
    scheme, _, rest = url.partition("://")
    authority = rest.split("/", 1)[0].rsplit("@", 1)[-1]
    host = authority[1:].split("]", 1)[0] if authority.startswith("[") else authority
    host = host.rsplit(":", 1)[0] if not authority.startswith("[") else host
    proxies = urllib.request.getproxies()
    if scheme not in proxies and "all" not in proxies:
        return False
    return not urllib.request.proxy_bypass(host)


class ResponseTooLarge(Exception):
    """An answer's body is longer than the transport's ``max_body`` bytes: it is not read
    further (the connection is closed)."""

    def __init__(self, limit: int, detail: str):
        super().__init__(f"the answer's body is larger than {limit:,} bytes ({detail})")
        self.limit = limit


#: Bytes read at a time from a body without Content-Length (read until the server closes).
_PIECE = 64 * 1024


def _unread_bytes(reader: asyncio.StreamReader) -> int:
    """Bytes received but not read yet; -1 when the reader does not tell (then never reuse)."""
    buffer = getattr(reader, "_buffer", None)
    return len(buffer) if isinstance(buffer, bytearray) else -1


class _Connection:
    __slots__ = ("idle_since", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader = reader
        self.writer = writer
        self.idle_since = time.monotonic()

    def clean(self) -> bool:
        """Open, and nothing received that no request asked for."""
        return (
            not self.reader.at_eof()
            and not self.writer.is_closing()
            and _unread_bytes(self.reader) == 0
        )

    def close(self) -> None:
        self.writer.close()


def _timeouts(request: Any) -> tuple[float | None, float | None, float | None]:
    timeout = request.extensions.get("timeout") or {}
    return timeout.get("connect"), timeout.get("read"), timeout.get("write")


async def _read_body(
    reader: asyncio.StreamReader, headers: dict[bytes, bytes], limit: int | None
) -> tuple[bytes, bool]:
    """The body (at most ``limit`` bytes, else :class:`ResponseTooLarge` before more is read)
    and whether it was explicitly framed (then the connection may be reused)."""
    if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
        chunks: list[bytes] = []
        total = 0
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";", 1)[0].strip(), 16)
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":
                    pass  # trailers
                return b"".join(chunks), True
            total += size
            if limit is not None and total > limit:
                raise ResponseTooLarge(limit, f"chunks of {total:,} bytes so far")
            chunks.append(await reader.readexactly(size))
            await reader.readexactly(2)
    length = headers.get(b"content-length")
    if length is not None:
        if limit is not None and int(length) > limit:
            raise ResponseTooLarge(limit, f"Content-Length {int(length):,}")
        return await reader.readexactly(int(length)), True
    pieces: list[bytes] = []
    total = 0
    while piece := await reader.read(_PIECE):
        total += len(piece)
        if limit is not None and total > limit:
            raise ResponseTooLarge(limit, f"{total:,} bytes so far, until the server closes")
        pieces.append(piece)
    return b"".join(pieces), False


def make_lean_transport(
    httpx: Any,
    *,
    max_connections: int,
    ssl_context: ssl.SSLContext | None = None,
    keep_alive: bool = False,
    keepalive_expiry: float = 5.0,
    max_body: int | None = None,
) -> Any:
    """A new transport (an ``httpx.AsyncBaseTransport``) with at most ``max_connections``.

    ``ssl_context`` verifies ``https://`` servers (default: httpx's, with certifi's CAs);
    ``keep_alive`` reuses connections (see the module documentation: pairing is then checked,
    not certain); ``max_body`` bounds the bytes of an answer's body as sent (a longer one
    raises :class:`ResponseTooLarge` before it is read further; None: no bound).
    """
    global _TRANSPORT_CLASS
    if _TRANSPORT_CLASS is None:
        _TRANSPORT_CLASS = _define(httpx)
    return _TRANSPORT_CLASS(
        max_connections=max_connections,
        ssl_context=ssl_context,
        keep_alive=keep_alive,
        keepalive_expiry=keepalive_expiry,
        max_body=max_body,
    )


def _define(httpx: Any) -> Any:
    class LeanHTTP11Transport(httpx.AsyncBaseTransport):  # type: ignore[misc]
        """Keep-alive HTTP/1.1 over asyncio streams, for ``http://`` and ``https://`` URLs."""

        def __init__(
            self,
            *,
            max_connections: int,
            ssl_context: ssl.SSLContext | None,
            keep_alive: bool,
            keepalive_expiry: float,
            max_body: int | None,
        ):
            self._keep_alive = keep_alive
            self._max_body = max_body
            self._slots = asyncio.Semaphore(max_connections)
            self._idle: dict[tuple[str, str, int], deque[_Connection]] = {}
            self._keepalive_expiry = keepalive_expiry
            self._ssl_context = ssl_context

        async def _connect(
            self, scheme: str, host: str, port: int, timeout: float | None
        ) -> _Connection:
            tls: ssl.SSLContext | None = None
            if scheme == "https":
                if self._ssl_context is None:
                    self._ssl_context = httpx.create_ssl_context()
                tls = self._ssl_context
            try:
                async with asyncio.timeout(timeout):
                    reader, writer = await asyncio.open_connection(
                        host,
                        port,
                        limit=_MAX_HEAD,
                        ssl=tls,
                        server_hostname=host if tls is not None else None,
                    )
            except TimeoutError as exc:
                raise httpx.ConnectTimeout(f"connecting to {host}:{port} timed out") from exc
            except OSError as exc:  # ssl.SSLError (a certificate problem) is an OSError
                raise httpx.ConnectError(f"cannot connect to {host}:{port}: {exc}") from exc
            return _Connection(reader, writer)

        async def _take_idle(self, key: tuple[str, str, int]) -> _Connection | None:
            idle = self._idle.get(key)
            if not idle:
                return None
            # One turn of the loop reads whatever the server sent while the connection was
            # idle into its buffer, where clean() sees it.
            await asyncio.sleep(0)
            now = time.monotonic()
            while idle:
                connection = idle.pop()
                if now - connection.idle_since < self._keepalive_expiry and connection.clean():
                    return connection
                connection.close()
            return None

        async def handle_async_request(self, request: Any) -> Any:
            url = request.url
            if url.scheme not in _DEFAULT_PORTS:
                raise httpx.UnsupportedProtocol(
                    f"the lean transport speaks http:// and https://, got {url}"
                )
            connect_timeout, read_timeout, write_timeout = _timeouts(request)
            body = await request.aread()
            head = self.request_head(request.method, url.raw_path, request.headers.raw)
            status, version, raw_headers, content = await self.exchange(
                url.scheme,
                url.host,
                url.port or _DEFAULT_PORTS[url.scheme],
                request.method,
                head + body,
                connect_timeout=connect_timeout,
                read_timeout=read_timeout,
                write_timeout=write_timeout,
            )
            return httpx.Response(
                status,
                headers=raw_headers,
                content=content,
                request=request,
                extensions={"http_version": version},
            )

        def request_head(
            self, method: str, target: bytes, headers: Iterable[tuple[bytes, bytes]]
        ) -> bytes:
            """The request line and headers as sent, up to the blank line before the body."""
            lines = [b"%s %s HTTP/1.1" % (method.encode("ascii"), target)]
            lines.extend(
                b"%s: %s" % (name, value)
                for name, value in headers
                if self._keep_alive or name.lower() != b"connection"
            )
            if not self._keep_alive:
                lines.append(b"Connection: close")
            return b"\r\n".join(lines) + b"\r\n\r\n"

        async def exchange(
            self,
            scheme: str,
            host: str,
            port: int,
            method: str,
            payload: bytes,
            *,
            connect_timeout: float | None,
            read_timeout: float | None,
            write_timeout: float | None,
        ) -> tuple[int, bytes, list[tuple[bytes, bytes]], bytes]:
            """Send ``payload`` (head and body) and read the answer: status, HTTP version, raw
            headers and body, without httpx's request and response objects (the judges'
            :class:`~ragmeter.judges.clients.http.HttpEndpoint` calls this directly).

            Raises httpx's exceptions, as :meth:`handle_async_request` does.
            """
            key = (scheme, host, port)
            async with self._slots:
                for attempt in (0, 1):
                    connection = await self._take_idle(key)
                    reused = connection is not None
                    if connection is None:
                        connection = await self._connect(scheme, host, port, connect_timeout)
                    try:
                        return await self._exchange(
                            connection, key, method, payload, read_timeout, write_timeout
                        )
                    except _StaleConnection:
                        connection.close()
                        if not reused or attempt:
                            raise httpx.RemoteProtocolError(
                                "the server closed the connection without answering"
                            ) from None
                    except BaseException:
                        connection.close()
                        raise
            raise AssertionError("unreachable")

        async def _exchange(
            self,
            connection: _Connection,
            key: tuple[str, str, int],
            method: str,
            payload: bytes,
            read_timeout: float | None,
            write_timeout: float | None,
        ) -> tuple[int, bytes, list[tuple[bytes, bytes]], bytes]:
            writer = connection.writer
            try:
                writer.write(payload)
                if writer.transport.get_write_buffer_size():
                    async with asyncio.timeout(write_timeout):
                        await writer.drain()
                else:
                    # All sent already: drain() cannot wait (it still reports a lost
                    # connection), so it needs no timer.
                    await writer.drain()
            except TimeoutError as exc:
                raise httpx.WriteTimeout("sending the request timed out") from exc
            except OSError as exc:
                raise _StaleConnection() from exc
            while True:
                status, version, header_lines = await self._read_head(connection, read_timeout)
                # An interim 1xx response (100 Continue, 103 Early Hints) is not the answer.
                if not 100 <= status < 200 or status == 101:
                    break
            raw_headers = []
            index: dict[bytes, bytes] = {}
            for line in header_lines:
                name, _, value = line.partition(b":")
                raw_headers.append((name.strip(), value.strip()))
                index[name.strip().lower()] = value.strip()
            if method == "HEAD" or status in _NO_BODY_STATUSES or status == 101:
                content, framed = b"", True
            else:
                try:
                    async with asyncio.timeout(read_timeout):
                        content, framed = await _read_body(connection.reader, index, self._max_body)
                except TimeoutError as exc:
                    raise httpx.ReadTimeout("reading the response body timed out") from exc
                except (asyncio.IncompleteReadError, ValueError, OSError) as exc:
                    raise httpx.RemoteProtocolError(
                        f"the response body is malformed: {exc}"
                    ) from exc
            closing = index.get(b"connection", b"").lower() == b"close" or version == b"HTTP/1.0"
            # Bytes after a complete response answer no request: the connection is out of step.
            if self._keep_alive and framed and not closing and connection.clean():
                connection.idle_since = time.monotonic()
                self._idle.setdefault(key, deque()).append(connection)
            else:
                connection.close()
            return status, version, raw_headers, content

        async def _read_head(
            self, connection: _Connection, read_timeout: float | None
        ) -> tuple[int, bytes, list[bytes]]:
            """Status, HTTP version and header lines of the next response head."""
            try:
                async with asyncio.timeout(read_timeout):
                    head = await connection.reader.readuntil(b"\r\n\r\n")
            except TimeoutError as exc:
                raise httpx.ReadTimeout("waiting for the response timed out") from exc
            except asyncio.IncompleteReadError as exc:
                if not exc.partial:
                    raise _StaleConnection() from exc
                raise httpx.RemoteProtocolError("the response head was cut short") from exc
            except asyncio.LimitOverrunError as exc:
                raise httpx.RemoteProtocolError("the response head is too large") from exc
            except OSError as exc:
                raise _StaleConnection() from exc
            status_line, *header_lines = head[:-4].split(b"\r\n")
            try:
                version, status_text = status_line.split(b" ", 1)
                status = int(status_text[:3])
            except ValueError as exc:
                raise httpx.RemoteProtocolError(
                    f"malformed status line {status_line[:80]!r}"
                ) from exc
            return status, version, header_lines

        async def aclose(self) -> None:
            for idle in self._idle.values():
                while idle:
                    idle.pop().close()
            self._idle.clear()

    return LeanHTTP11Transport


class _StaleConnection(Exception):
    """A reused keep-alive connection turned out to be closed by the server: retry on a new one."""
