"""A loopback OpenAI-compatible server for tests: real HTTP on 127.0.0.1, scriptable faults.

It speaks ``POST /v1/chat/completions``, ``POST /v1/embeddings``, ``GET /v1/models`` and the
Batch API (``/v1/files`` and ``/v1/batches``, :mod:`ragmeter.judges.testing.batches`),
answers chats with a judge (a :class:`~ragmeter.judges.testing.RuleJudge` by default) and
embeddings with an embedder (a :class:`~ragmeter.judges.testing.HashEmbedder` by default), and
records every request. Faults are queued with :meth:`LoopbackOpenAIServer.enqueue` and apply to
the next matching requests, in order::

    with LoopbackOpenAIServer() as server:
        server.enqueue(Fault.http(429, retry_after=1), Fault.http(500))
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="loopback")

Run ``python -m ragmeter.judges.testing --latency 0.05`` to serve one from the command line
(it prints its base URL); it never binds anything but the loopback address it is given.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from ...exceptions import InvalidInputError
from ..clients.offline import HashEmbedder, RuleJudge
from ..clients.protocol import JudgeRequest, estimate_tokens
from .batches import FakeBatches, parse_multipart

__all__ = ["Fault", "LoopbackOpenAIServer", "RecordedRequest"]

Route = Literal["any", "chat", "embeddings"]


# What llama-cpp-python's server answers (HTTP 500) to OpenAI's json_schema response format.
LLAMA_CPP_PYTHON_JSON_SCHEMA_ERROR = (
    "1 validation error: ('body', 'response_format', 'type'): "
    "Input should be 'text' or 'json_object'"
)


class _Server(ThreadingHTTPServer):
    request_queue_size = 256
    daemon_threads = True


class _Server6(_Server):
    address_family = socket.AF_INET6


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour for the next matching request (see the constructors)."""

    status: int | None = None
    retry_after: float | None = None
    message: str = "scripted fault"
    raw_body: bytes | None = None
    content: str | None = None
    delay_s: float = 0.0
    drop: bool = False
    embedding_delta: int = 0
    route: Route = "any"

    @classmethod
    def http(
        cls,
        status: int,
        *,
        retry_after: float | None = None,
        message: str = "scripted fault",
        route: Route = "any",
    ) -> Fault:
        """Answer with an HTTP error status (and ``Retry-After`` when given)."""
        return cls(status=status, retry_after=retry_after, message=message, route=route)

    @classmethod
    def malformed_body(cls, route: Route = "any") -> Fault:
        """HTTP 200 whose body is not JSON at all."""
        return cls(raw_body=b"<html>upstream hiccup</html>", route=route)

    @classmethod
    def reply(cls, text: str) -> Fault:
        """A well-formed completion whose message content is ``text``."""
        return cls(content=text, route="chat")

    @classmethod
    def slow(cls, delay_s: float, route: Route = "any") -> Fault:
        """Answer normally after ``delay_s`` seconds (to trigger client timeouts)."""
        return cls(delay_s=delay_s, route=route)

    @classmethod
    def drop_connection(cls, route: Route = "any") -> Fault:
        """Close the connection without answering."""
        return cls(drop=True, route=route)

    @classmethod
    def wrong_embedding_count(cls, delta: int = -1) -> Fault:
        """Return ``delta`` more (or fewer) embeddings than texts sent."""
        return cls(embedding_delta=delta, route="embeddings")


@dataclass
class RecordedRequest:
    """One request the server received (never the Authorization header's value), and the
    ``usage`` it answered a chat with."""

    method: str
    path: str
    body: Any
    authorized: bool
    status: int = 0
    fault: Fault | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    usage: Mapping[str, Any] | None = None


class LoopbackOpenAIServer:
    """An OpenAI-compatible HTTP server on 127.0.0.1 for offline tests and benchmarks.

    ``judge`` answers chats (default :class:`RuleJudge`), ``embedder`` embeddings (default
    :class:`HashEmbedder`); ``latency_s`` delays every answer; ``api_key`` (when given) is
    required as a bearer token, else 401. ``reject_json_schema`` makes the server answer
    OpenAI's ``json_schema`` response format with that status (500 like llama-cpp-python's
    server, 400 like llama.cpp's); ``reject_response_format`` does the same for every
    ``response_format``; ``reject_seed`` answers any ``seed`` with a 400. ``usage`` fixes the
    reported ``(prompt_tokens, completion_tokens)`` (default: ``ceil(chars / 4)``).
    ``prompt_cache=True`` plays a provider's prompt cache: the longest prefix a chat's
    messages share with an earlier chat's, in whole blocks of 64 characters (16 estimated
    tokens), is reported as ``usage.prompt_tokens_details.cached_tokens``.
    """

    def __init__(
        self,
        judge: Any = None,
        embedder: Any = None,
        *,
        latency_s: float = 0.0,
        api_key: str | None = None,
        model: str = "loopback-judge",
        reject_json_schema: int | None = None,
        reject_response_format: int | None = None,
        reject_seed: bool = False,
        usage: tuple[int, int] | None = None,
        include_usage: bool = True,
        prompt_cache: bool = False,
        host: str = "127.0.0.1",
        port: int = 0,
    ):
        if host not in ("127.0.0.1", "::1", "localhost"):
            raise InvalidInputError(
                f"LoopbackOpenAIServer only binds loopback addresses (127.0.0.1, ::1, "
                f"localhost), got host={host!r}"
            )
        self.judge = judge if judge is not None else RuleJudge()
        self.embedder = embedder if embedder is not None else HashEmbedder()
        self.latency_s = latency_s
        self.model = model
        self.reject_json_schema = reject_json_schema
        self.reject_response_format = reject_response_format
        self.reject_seed = reject_seed
        self.usage = usage
        self.include_usage = include_usage
        self.prompt_cache = prompt_cache
        self._prompts: list[str] = []
        self._completions = 0
        #: The Batch API's files and batches (``/v1/files``, ``/v1/batches``).
        self.batches = FakeBatches(self.chat_answer)
        self._api_key = api_key
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        server_class = _Server6 if ":" in host else _Server
        self._server = server_class((host, port), self._handler_class())
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        address = self._server.server_address
        host = address[0].decode() if isinstance(address[0], bytes) else str(address[0])
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{address[1]}/v1"

    def __repr__(self) -> str:
        return f"LoopbackOpenAIServer({self.base_url}, latency_s={self.latency_s})"

    def start(self) -> LoopbackOpenAIServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._server.serve_forever, name="loopback-openai", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> LoopbackOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def enqueue(self, *faults: Fault) -> None:
        """Queue faults; each is used by the next request its ``route`` matches."""
        with self._lock:
            self._faults.extend(faults)

    def pending_faults(self) -> int:
        with self._lock:
            return len(self._faults)

    def count(self, route: Route = "chat") -> int:
        """Requests received on ``route`` (``"chat"``, ``"embeddings"`` or ``"any"``)."""
        suffix = {"chat": "/chat/completions", "embeddings": "/embeddings"}.get(route)
        with self._lock:
            return sum(1 for r in self.requests if suffix is None or r.path.endswith(suffix))

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._faults.clear()
            self.max_in_flight = 0

    def chat_answer(self, body: Any, fault: Fault | None = None) -> tuple[int, dict[str, Any]]:
        """The status and JSON payload this server answers a ``/chat/completions`` body with
        (what a batch line gets too); ``fault`` may fix the message's content."""
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return 400, {"error": {"message": "body must hold a messages list"}}
        response_format = body.get("response_format") or {}
        kind = response_format.get("type") if isinstance(response_format, dict) else None
        if kind and self.reject_response_format:
            return self.reject_response_format, {
                "error": {"message": f"response_format {kind!r} is not supported"}
            }
        if kind == "json_schema" and self.reject_json_schema:
            return self.reject_json_schema, {
                "error": {
                    "message": LLAMA_CPP_PYTHON_JSON_SCHEMA_ERROR,
                    "type": "internal_server_error",
                }
            }
        if self.reject_seed and "seed" in body:
            return 400, {"error": {"message": "Unrecognized request argument supplied: seed"}}
        schema = None
        if kind == "json_schema":
            schema = (response_format.get("json_schema") or {}).get("schema")
        elif kind == "json_object":
            schema = response_format.get("schema")
        request = JudgeRequest(
            messages=tuple(
                {"role": str(m.get("role")), "content": str(m.get("content"))}
                for m in body["messages"]
            ),
            response_schema=schema,
            temperature=body.get("temperature"),
            seed=body.get("seed"),
            max_tokens=body.get("max_tokens"),
        )
        if fault is not None and fault.content is not None:
            text = fault.content
        else:
            try:
                text = _respond(self.judge, request)
            except Exception as exc:
                return 500, {"error": {"message": f"judge failed: {type(exc).__name__}: {exc}"}}
        prompt_text = "".join(m["content"] for m in request.messages)
        prompt_tokens, completion_tokens = self.usage or (
            estimate_tokens(prompt_text),
            estimate_tokens(text),
        )
        with self._lock:
            self._completions += 1
            number = self._completions
        payload: dict[str, Any] = {
            "id": f"chatcmpl-loopback-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
        }
        if self.include_usage:
            payload["usage"] = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            }
            if self.prompt_cache:
                cached = min(prompt_tokens, self._cached_prefix_tokens(prompt_text))
                payload["usage"]["prompt_tokens_details"] = {"cached_tokens": cached}
        return 200, payload

    def _cached_prefix_tokens(self, prompt: str) -> int:
        """The tokens of the longest prefix ``prompt`` shares with an earlier prompt, in whole
        blocks of 64 characters (what a provider's prefix cache would serve)."""
        with self._lock:
            earlier = list(self._prompts)
            self._prompts.append(prompt)
        longest = max((_shared_prefix(prompt, seen) for seen in earlier), default=0)
        return (longest // 64) * 16

    def _take_fault(self, route: str) -> Fault | None:
        with self._lock:
            for i, fault in enumerate(self._faults):
                if fault.route in ("any", route):
                    del self._faults[i]
                    return fault
        return None

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # One buffered write per response and no Nagle: otherwise the body waits for the
            # client's delayed ACK of the headers (a 40 ms stall per request on Linux).
            wbufsize = -1
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                return None

            def _send(
                self,
                status: int,
                payload: Any,
                headers: Mapping[str, str] | None = None,
                raw: bytes | None = None,
            ) -> None:
                body = raw if raw is not None else json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def _authorized(self) -> bool:
                if server._api_key is None:
                    return True
                return self.headers.get("Authorization") == f"Bearer {server._api_key}"

            def do_GET(self) -> None:
                path = self.path.rstrip("/")
                if "/batches/" in path or (path.endswith("/content") and "/files/" in path):
                    record = RecordedRequest("GET", self.path, None, self._authorized())
                    with server._lock:
                        server.requests.append(record)
                    if not record.authorized:
                        record.status = 401
                        self._send(401, {"error": {"message": "Incorrect API key provided"}})
                    elif path.endswith("/content"):
                        found = server.batches.content(path.split("/files/")[1][: -len("/content")])
                        record.status = 200 if found is not None else 404
                        if found is None:
                            self._send(404, {"error": {"message": f"no file {self.path}"}})
                        else:
                            self._send(200, None, raw=found)
                    else:
                        batch = server.batches.retrieve(path.split("/batches/")[1])
                        record.status = 200 if batch is not None else 404
                        self._send(record.status, batch or {"error": {"message": "no batch"}})
                    return
                if self.path.rstrip("/").endswith("/models"):
                    self._send(
                        200,
                        {
                            "object": "list",
                            "data": [
                                {"id": server.model, "object": "model", "owned_by": "ragmeter"}
                            ],
                        },
                    )
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"null")
                except json.JSONDecodeError:
                    body = None
                if self.path.rstrip("/").endswith(("/files", "/batches")):
                    self._batch_api(raw)
                    return
                route = (
                    "chat"
                    if self.path.endswith("/chat/completions")
                    else "embeddings"
                    if self.path.endswith("/embeddings")
                    else "other"
                )
                record = RecordedRequest(
                    method="POST",
                    path=self.path,
                    body=body,
                    authorized=self._authorized(),
                    headers={k: v for k, v in self.headers.items() if k.lower() != "authorization"},
                )
                with server._lock:
                    server.requests.append(record)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    self._answer(route, body, record)
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _batch_api(self, raw: bytes) -> None:
                record = RecordedRequest("POST", self.path, None, self._authorized())
                with server._lock:
                    server.requests.append(record)
                if not record.authorized:
                    record.status = 401
                    self._send(401, {"error": {"message": "Incorrect API key provided"}})
                    return
                if self.path.rstrip("/").endswith("/files"):
                    parts = parse_multipart(self.headers.get("Content-Type", ""), raw)
                    if "file" not in parts:
                        record.status = 400
                        self._send(400, {"error": {"message": "a multipart 'file' is needed"}})
                        return
                    filename, content = parts["file"]
                    record.status = 200
                    self._send(200, server.batches.upload(filename or "upload.jsonl", content))
                    return
                try:
                    body = json.loads(raw or b"null")
                except json.JSONDecodeError:
                    body = None
                record.body = body
                record.status, payload = server.batches.create(body)
                self._send(record.status, payload)

            def _answer(self, route: str, body: Any, record: RecordedRequest) -> None:
                fault = server._take_fault(route)
                record.fault = fault
                delay = server.latency_s + (fault.delay_s if fault else 0.0)
                if delay:
                    time.sleep(delay)
                if fault is not None and fault.drop:
                    record.status = -1
                    self.close_connection = True
                    self.connection.close()
                    return
                if not record.authorized:
                    record.status = 401
                    self._send(
                        401,
                        {
                            "error": {
                                "message": "Incorrect API key provided",
                                "type": "invalid_request_error",
                                "code": "invalid_api_key",
                            }
                        },
                    )
                    return
                if fault is not None and fault.status is not None:
                    record.status = fault.status
                    headers = (
                        {}
                        if fault.retry_after is None
                        else {"Retry-After": f"{fault.retry_after:g}"}
                    )
                    self._send(
                        fault.status,
                        {"error": {"message": fault.message, "type": "scripted"}},
                        headers,
                    )
                    return
                if fault is not None and fault.raw_body is not None:
                    record.status = 200
                    self._send(200, None, raw=fault.raw_body)
                    return
                if route == "chat":
                    self._chat(body, fault, record)
                elif route == "embeddings":
                    self._embeddings(body, fault, record)
                else:
                    record.status = 404
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def _chat(self, body: Any, fault: Fault | None, record: RecordedRequest) -> None:
                status, payload = server.chat_answer(body, fault)
                record.status = status
                if status == 200:
                    record.usage = payload.get("usage")
                self._send(status, payload)

            def _embeddings(self, body: Any, fault: Fault | None, record: RecordedRequest) -> None:
                texts = body.get("input") if isinstance(body, dict) else None
                if isinstance(texts, str):
                    texts = [texts]
                if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                    record.status = 400
                    self._send(
                        400, {"error": {"message": "input must be a string or a list of strings"}}
                    )
                    return
                vectors = _embed(server.embedder, texts)
                delta = fault.embedding_delta if fault is not None else 0
                if delta < 0:
                    vectors = vectors[: max(0, len(vectors) + delta)]
                elif delta > 0:
                    vectors = vectors + vectors[:1] * delta
                tokens = sum(estimate_tokens(t) for t in texts)
                record.status = 200
                self._send(
                    200,
                    {
                        "object": "list",
                        "model": body.get("model") or "loopback-embedder",
                        "data": [
                            {"object": "embedding", "index": i, "embedding": v}
                            for i, v in enumerate(vectors)
                        ],
                        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
                    },
                )

        return Handler


def _shared_prefix(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _respond(judge: Any, request: JudgeRequest) -> str:
    respond = getattr(judge, "respond", None)
    if callable(respond):
        return str(respond(request))
    result: str = asyncio.run(judge.complete(request)).text
    return result


def _embed(embedder: Any, texts: Sequence[str]) -> list[list[float]]:
    embed_sync = getattr(embedder, "embed_sync", None)
    if callable(embed_sync):
        return [list(v) for v in embed_sync(texts)]
    return asyncio.run(embedder.embed(texts))


class _FixedJudge:
    """Answers every chat with one fixed JSON text (cheap, for benchmarks)."""

    name = "fixed"

    def __init__(self, text: str):
        self.text = text

    def respond(self, request: JudgeRequest) -> str:
        return self.text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ragmeter.judges.testing",
        description="Serve an OpenAI-compatible test endpoint on the loopback interface.",
    )
    parser.add_argument("--port", type=int, default=0, help="port (default: any free port)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every answer")
    parser.add_argument(
        "--fixed-answer",
        default=None,
        help="answer every chat with this text instead of the RuleJudge's answer",
    )
    args = parser.parse_args(argv)
    judge = _FixedJudge(args.fixed_answer) if args.fixed_answer is not None else None
    server = LoopbackOpenAIServer(judge, latency_s=args.latency, port=args.port)
    print(server.base_url, flush=True)
    try:
        server._server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._server.server_close()
    return 0
