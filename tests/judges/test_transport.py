"""The lean HTTP/1.1 transport behind httpx, against httpx's own transport and odd servers."""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from _hostile_files import HTTP_ANSWERS, HTTP_LIMIT
from raw_http import RawServer

from ragmeter.exceptions import JudgeTransportError
from ragmeter.judges import OpenAICompatibleJudge, Sample, evaluate
from ragmeter.judges.clients import http as http_module
from ragmeter.judges.clients.http import HttpEndpoint
from ragmeter.judges.clients.secrets import Secret
from ragmeter.judges.clients.transport import make_lean_transport
from ragmeter.judges.testing import Fault, LoopbackOpenAIServer

SAMPLES = [
    Sample("Where is Paris?", "Paris is in France. It is big.", ("Paris is in France.",)),
    Sample("Who wrote Hamlet?", "Shakespeare wrote Hamlet.", ("Hamlet is by Shakespeare.",)),
]
METRICS = ["groundedness", "context_relevancy", "answer_relevance"]


def test_both_transports_send_the_same_requests_and_get_the_same_values():
    outcomes = []
    for plain in (True, False):
        with LoopbackOpenAIServer() as server:
            judge = OpenAICompatibleJudge(base_url=server.base_url, model="m", lean_transport=plain)
            results = evaluate(SAMPLES, METRICS, judge=judge, max_pending=1)
            bodies = sorted(json.dumps(r.body, sort_keys=True) for r in server.requests)
            outcomes.append(([r.score.value for r in results.rows], bodies))
        assert judge._http.uses_lean_transport is plain
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("plain", [True, False])
@pytest.mark.parametrize(
    "fault", [Fault.drop_connection(), Fault.malformed_body(), Fault.slow(3.0)]
)
def test_faults_look_the_same_through_both_transports(plain, fault):
    with LoopbackOpenAIServer() as server:
        server.enqueue(fault)
        judge = OpenAICompatibleJudge(
            base_url=server.base_url, model="m", lean_transport=plain, timeout_s=0.5
        )
        results = evaluate(SAMPLES[:1], ["groundedness"], judge=judge)
    assert results.rows[0].score.value == 0.5
    assert results.rows[0].total_usage().retries == 1


def test_proxied_urls_keep_httpx_transport(monkeypatch):
    def endpoint(url):
        return HttpEndpoint(
            url, None, timeout_s=1, max_connections=4, headers=None, transport=None, purpose="t"
        )

    assert endpoint("http://127.0.0.1:8000/v1").uses_lean_transport
    assert endpoint("https://api.openai.com/v1").uses_lean_transport
    monkeypatch.setenv("http_proxy", "http://proxy.invalid:3128")
    monkeypatch.setenv("no_proxy", "")
    assert not endpoint("http://10.0.0.5:8000/v1").uses_lean_transport


class OddServer(BaseHTTPRequestHandler):
    """Answers in the less common shapes of HTTP/1.1 that a server may use."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        return None

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        payload = json.dumps({"path": self.path}).encode()
        if self.path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for start in range(0, len(payload), 5):
                piece = payload[start : start + 5]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
        elif self.path == "/gzip":
            packed = gzip.compress(payload)
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(packed)))
            self.end_headers()
            self.wfile.write(packed)
        elif self.path == "/close":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(payload)
            self.close_connection = True
        else:  # keep-alive answer, then the server drops the idle connection
            self.send_response(200)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            self.close_connection = True


@pytest.fixture
def odd_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), OddServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_chunked_gzip_close_and_dropped_keep_alive(odd_server):
    async def run():
        transport = make_lean_transport(httpx, max_connections=2)
        async with httpx.AsyncClient(base_url=odd_server, transport=transport) as client:
            answers = []
            for path in ("/chunked", "/gzip", "/close", "/drop", "/drop", "/chunked"):
                response = await client.post(path, json={"x": 1})
                answers.append((response.status_code, response.json()["path"]))
            return answers

    assert asyncio.run(run()) == [
        (200, "/chunked"),
        (200, "/gzip"),
        (200, "/close"),
        (200, "/drop"),
        (200, "/drop"),  # the idle connection was closed by the server: a new one is opened
        (200, "/chunked"),
    ]


def test_only_http_and_https_are_spoken():
    async def run():
        transport = make_lean_transport(httpx, max_connections=1)
        async with httpx.AsyncClient(transport=transport) as client:
            await client.post("ftp://127.0.0.1:9/v1", json={})

    with pytest.raises(httpx.UnsupportedProtocol):
        asyncio.run(run())


@pytest.mark.parametrize("lean", [True, False], ids=["lean-transport", "httpx-transport"])
def test_the_loopback_server_serves_ipv6(lean):
    with LoopbackOpenAIServer(host="::1") as server:
        assert server.base_url.startswith("http://[::1]:")
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m", lean_transport=lean)
        results = evaluate(SAMPLES[:1], ["groundedness"], judge=judge)
    assert results.rows[0].score.status == "ok"


def test_the_loopback_server_binds_nothing_but_loopback():
    from ragmeter import InvalidInputError

    with pytest.raises(InvalidInputError, match="loopback"):
        LoopbackOpenAIServer(host="0.0.0.0")


def _capture_one_request(answer: bytes):
    """A server that records the raw bytes of one request per connection and sends ``answer``."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    seen: list[bytes] = []

    def serve():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536)
                head, _, body = data.partition(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                while len(body) < length:
                    body += conn.recv(65536)
                seen.append(head + b"\r\n\r\n" + body)
                conn.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    return listener, seen


def test_the_judges_post_sends_the_bytes_of_httpx_request(monkeypatch):
    # HttpEndpoint talks to the lean transport without httpx's Request: the bytes on the wire
    # must be those the Request it stands for would send.
    from ragmeter.judges.clients import http as http_module
    from ragmeter.judges.clients.secrets import Secret

    payload = json.dumps({"ok": "é"}).encode()
    answer = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(payload), payload)
    listener, seen = _capture_one_request(answer)
    base = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    body = {"model": "m", "messages": [{"role": "user", "content": 'Grüße "quoted"'}]}

    async def post():
        endpoint = HttpEndpoint(
            base,
            Secret("sk-test-0123456789"),
            timeout_s=5,
            max_connections=2,
            headers={"X-Extra": "1"},
            transport=None,
            purpose="t",
        )
        assert endpoint.uses_lean_transport
        return [await endpoint.post("chat/completions", body) for _ in range(2)]

    fast = asyncio.run(post())
    monkeypatch.setattr(http_module, "_lean_head", lambda *args: None)  # httpx's Request
    slow = asyncio.run(post())
    listener.close()
    assert fast == slow == [{"ok": "é"}] * 2
    assert len(seen) == 4 and seen[0] == seen[1] == seen[2] == seen[3]
    assert b"Content-Length: %d\r\n" % len(seen[0].partition(b"\r\n\r\n")[2]) in seen[0]


@pytest.mark.parametrize("path", ["chunked", "gzip", "close", "drop"])
def test_the_judges_post_reads_every_shape_of_answer(odd_server, path):
    async def post():
        endpoint = HttpEndpoint(
            odd_server,
            None,
            timeout_s=5,
            max_connections=2,
            headers=None,
            transport=None,
            purpose="t",
        )
        return await endpoint.post(path, {"x": 1})

    assert asyncio.run(post()) == {"path": f"/{path}"}


# -- hostile answers: bounded bodies, bounded decompression, error bodies cut then redacted ------


def _post_to(raw: bytes, *, lean: bool, limit: int, api_key: str | None = None):
    """The outcome of one POST to a server that sends ``raw`` and closes: ("json", value) or
    (the error's kind, the error)."""
    with RawServer(lambda request, index: [(raw, 0.0)]) as server:

        async def post():
            endpoint = HttpEndpoint(
                server.url(),
                Secret(api_key) if api_key else None,
                timeout_s=30,
                max_connections=1,
                headers=None,
                transport=None,
                purpose="t",
                lean_transport=lean,
                max_response_bytes=limit,
            )
            assert endpoint.uses_lean_transport is lean
            return await endpoint.post("chat/completions", {"x": 1})

        try:
            return "json", asyncio.run(post())
        except JudgeTransportError as error:
            if "max_response_bytes" in str(error):
                return "too large", error
            return (error.kind if error.status is None else "http"), error


@pytest.mark.parametrize("lean", [True, False], ids=["lean", "httpx"])
@pytest.mark.parametrize("name", list(HTTP_ANSWERS))
def test_hostile_answers_are_bounded_and_refused_as_transport_errors(name, lean):
    # No bound on an answer's size: a 2 MB gzip answer inflated to 2 GB outside the timeout
    # (peak RSS 1.97 GiB) on the lean transport; httpx's transport read any body whole.
    raw, due = HTTP_ANSWERS[name]
    outcome, detail = _post_to(raw, lean=lean, limit=HTTP_LIMIT)
    assert outcome == due, (outcome, detail)
    if due == "json":
        assert detail == {"hostile": True, "pad": "x" * 200}
    elif due == "too large":
        assert f"max_response_bytes={HTTP_LIMIT:,}" in str(detail)
        assert not detail.retryable  # a retry would read as much again


@pytest.mark.parametrize("lean", [True, False], ids=["lean", "httpx"])
def test_an_error_body_is_cut_before_it_is_redacted(monkeypatch, lean):
    # The whole body of an HTTP 500 went through redact() (1-2 s per MB, on the event loop)
    # before it was cut: a 20 MB 500 took 20 s with deadline_s=5.
    seen: list[int] = []
    redact = http_module.redact

    def measured(text: str) -> str:
        seen.append(len(text))
        return redact(text)

    monkeypatch.setattr(http_module, "redact", measured)
    raw, _ = HTTP_ANSWERS["large error body"]
    outcome, error = _post_to(
        raw, lean=lean, limit=HTTP_LIMIT, api_key="secret-abcdefghij-0123456789"
    )
    assert outcome == "http" and error.status == 500
    assert seen and max(seen) <= http_module.SHOWN_ERROR_CHARS
    # The first SHOWN_ERROR_CHARS characters, the key's 18 redacted.
    assert error.body == "***" + "y" * (http_module.SHOWN_ERROR_CHARS - 18)
    assert "secret-abcdefghij" not in str(error)


BOUNDED_BY_DEFAULT = """
import asyncio, resource, sys
from raw_http import RawServer
from _hostile_files import bomb, http_answer
from ragmeter.exceptions import JudgeTransportError
from ragmeter.judges.clients.http import DEFAULT_MAX_RESPONSE_BYTES, HttpEndpoint
raw = http_answer(200, bomb(1 << 30, 31), {"Content-Encoding": "gzip"})
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
lean = sys.argv[1] == "lean"
with RawServer(lambda request, index: [(raw, 0.0)]) as server:
    async def post():
        endpoint = HttpEndpoint(server.url(), None, timeout_s=60, max_connections=1,
                                headers=None, transport=None, purpose="t", lean_transport=lean)
        return await endpoint.post("chat/completions", {"x": 1})
    try:
        asyncio.run(post())
    except JudgeTransportError as error:
        print(error)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - rss
print("grown", grown, "bound", DEFAULT_MAX_RESPONSE_BYTES)
"""


@pytest.mark.parametrize("lean", ["lean", "httpx"])
def test_a_gzip_bomb_is_inflated_no_further_than_the_default_bound(lean):
    # 1 MB of gzip that inflates to 1 GiB, read with the default max_response_bytes (64 MiB):
    # refused, and the process grows by about the bound, not by the gigabyte.
    here = Path(__file__).resolve().parent
    paths = os.pathsep.join([str(here), str(here.parent), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", BOUNDED_BY_DEFAULT, lean],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": paths},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    first, last = done.stdout.strip().splitlines()
    assert "max_response_bytes=67,108,864" in first and "once decompressed" in first
    grown, bound = int(last.split()[1]), int(last.split()[3])
    assert grown < 4 * bound
