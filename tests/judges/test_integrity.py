"""A response is never paired with another request, on every transport.

The server (a raw socket on 127.0.0.1) answers every request correctly but also sends one
unrequested response after the first one, as a buggy server or proxy may: a client that reuses
the keep-alive connection without noticing the extra bytes takes that stale answer for the next
request, and a stale answer passes every check.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from raw_http import RawServer, client_tls_context, completion, http_response

from ragmeter.judges import OpenAICompatibleJudge, RubricMetric, Sample, aevaluate, evaluate

RATING = RubricMetric("rating", "Rate the $question answer.", allowed_values=[0, 1])
SAMPLES = [Sample("first", id="first"), Sample("second", id="second")]
TRUE_VALUES = [0.0, 1.0]  # the server rates "first" 0 and "second" 1


def answer_of(request):
    prompt = json.dumps(request.json()["messages"])
    value = 0 if "<data:question>\\nfirst\\n" in prompt else 1  # fenced, JSON-escaped
    return http_response(completion(json.dumps({"value": value, "reason": "as asked"})))


STALE = http_response(completion(json.dumps({"value": 0, "reason": "stale"})))


def one_extra_response(delay_s: float = 0.0):
    def answer(request, index):
        sent = [(answer_of(request), 0.0)]
        if index == 0:
            sent.append((STALE, delay_s))
        return sent

    return answer


def judge_for(url: str, lean: bool, **options):
    return OpenAICompatibleJudge(
        base_url=url,
        model="m",
        max_concurrency=1,
        lean_transport=lean,
        verify=client_tls_context() if url.startswith("https") else True,
        **options,
    )


@pytest.mark.parametrize("lean", [True, False], ids=["lean-transport", "httpx-transport"])
@pytest.mark.parametrize("tls", [False, True], ids=["http", "https"])
def test_an_extra_response_is_never_taken_for_the_next_request(lean, tls):
    with RawServer(one_extra_response(), tls=tls) as server:
        judge = judge_for(server.url(), lean)
        results = evaluate(SAMPLES, [RATING], judge=judge, max_pending=1)
    assert [row.value for row in results.rows] == TRUE_VALUES
    assert len(server.requests) == 2


def test_an_extra_response_that_arrives_while_idle_discards_the_connection():
    async def run(judge):
        first = await aevaluate(SAMPLES[:1], [RATING], judge=judge)
        await asyncio.sleep(0.3)  # the stale response arrives while the connection is idle
        second = await aevaluate(SAMPLES[1:], [RATING], judge=judge)
        await judge.aclose()
        return [first.rows[0].value, second.rows[0].value]

    with RawServer(one_extra_response(delay_s=0.1)) as server:
        values = asyncio.run(run(judge_for(server.url(), True)))
    assert values == TRUE_VALUES
    assert server.connections == 2


def test_through_a_proxy_an_extra_response_is_never_taken(monkeypatch):
    with RawServer(one_extra_response()) as proxy:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
        monkeypatch.setenv("NO_PROXY", "")
        judge = judge_for("http://judge.invalid/v1", True)
        assert not judge._http.uses_lean_transport
        results = evaluate(SAMPLES, [RATING], judge=judge, max_pending=1)
    assert [row.value for row in results.rows] == TRUE_VALUES
    assert proxy.requests[0].line.startswith("POST http://judge.invalid/v1/chat/completions")


@pytest.mark.parametrize("tls", [False, True], ids=["http", "https"])
def test_every_request_has_its_own_connection(tls):
    # A stale response can arrive after any check for unread bytes: the only certain pairing
    # is one request per connection, asked to close.
    def answer(request, index):
        return [(answer_of(request), 0.0)]

    with RawServer(answer, tls=tls) as server:
        judge = judge_for(server.url(), True)
        results = evaluate(SAMPLES * 1, [RATING], judge=judge, max_pending=1)
    assert [row.value for row in results.rows] == TRUE_VALUES
    assert server.connections == len(SAMPLES)
    assert all(
        {k.lower(): v.lower() for k, v in r.headers.items()}.get("connection") == "close"
        for r in server.requests
    )


def test_an_interim_100_continue_is_not_taken_for_the_answer():
    def answer(request, index):
        return [(b"HTTP/1.1 100 Continue\r\n\r\n", 0.0), (answer_of(request), 0.0)]

    with RawServer(answer) as server:
        results = evaluate(SAMPLES, [RATING], judge=judge_for(server.url(), True), max_pending=1)
    assert [row.value for row in results.rows] == TRUE_VALUES
