"""A raw-socket HTTP/1.1 server on 127.0.0.1 for faults a well-behaved server never makes.

Each connection is served by a thread that parses requests by hand and answers with whatever
bytes the test's ``answer(request, index)`` returns, so a test can send an extra response, drip
a body one byte at a time, or answer over TLS with the test certificate in ``data/``.
"""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
CERT = DATA / "loopback-cert.pem"
KEY = DATA / "loopback-key.pem"


@dataclass
class RawRequest:
    line: str
    headers: dict[str, str]
    body: bytes

    def json(self):
        return json.loads(self.body or b"null")


# What the server sends for one request: a list of (bytes, seconds to wait before sending).
Answer = Callable[[RawRequest, int], list[tuple[bytes, float]]]


def http_response(payload: object, status: int = 200, headers: dict[str, str] | None = None):
    body = json.dumps(payload).encode()
    head = [
        f"HTTP/1.1 {status} X",
        f"Content-Length: {len(body)}",
        "Content-Type: application/json",
    ]
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def completion(content: str) -> dict:
    return {
        "id": "raw",
        "object": "chat.completion",
        "model": "raw",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def client_tls_context() -> ssl.SSLContext:
    """A client context that trusts the test certificate (and nothing else)."""
    return ssl.create_default_context(cafile=str(CERT))


class RawServer:
    """Serves ``answer`` on 127.0.0.1 (TLS with ``tls=True``); counts requests and connections."""

    def __init__(self, answer: Answer, *, tls: bool = False):
        self.answer = answer
        self.requests: list[RawRequest] = []
        self.connections = 0
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._tls = None
        if tls:
            self._tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            self._tls.load_cert_chain(CERT, KEY)
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def port(self) -> int:
        return int(self._listener.getsockname()[1])

    def url(self, host: str = "127.0.0.1") -> str:
        scheme = "https" if self._tls else "http"
        return f"{scheme}://{host}:{self.port}/v1"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopped.set()
        self._listener.close()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            if self._tls is not None:
                conn = self._tls.wrap_socket(conn, server_side=True)
            for request in _requests(conn):
                with self._lock:
                    index = len(self.requests)
                    self.requests.append(request)
                for data, wait in self.answer(request, index):
                    if wait:
                        time.sleep(wait)
                    conn.sendall(data)
        except (OSError, ssl.SSLError):
            pass
        finally:
            with contextlib.suppress(OSError):
                conn.close()


def _requests(conn: socket.socket) -> Iterator[RawRequest]:
    buffer = b""
    while True:
        while b"\r\n\r\n" not in buffer:
            chunk = conn.recv(65536)
            if not chunk:
                return
            buffer += chunk
        head, buffer = buffer.split(b"\r\n\r\n", 1)
        line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for header in header_lines:
            name, _, value = header.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        while len(buffer) < length:
            chunk = conn.recv(65536)
            if not chunk:
                return
            buffer += chunk
        body, buffer = buffer[:length], buffer[length:]
        yield RawRequest(line, headers, body)
