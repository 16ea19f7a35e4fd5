"""HTTP endpoints of OpenAI-compatible servers: one set of httpx clients per event loop."""

from __future__ import annotations

import asyncio
import json
import math
import weakref
from collections.abc import Mapping
from typing import Any

from ..._optional import import_optional
from ...exceptions import JudgeTransportError
from .environment import ENV_API_KEY
from .limits import classify_status, parse_retry_after
from .secrets import Secret, redact
from .transport import make_plain_http_transport, proxy_configured_for

__all__ = ["HttpEndpoint"]


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
