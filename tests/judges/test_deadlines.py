"""Time limits hold on every transport: ``timeout_s`` bounds a whole request (head and body),
``deadline_s`` a whole call with its retries, and a dead endpoint stops the run at once."""

from __future__ import annotations

import json
import socket
import time

import pytest
from raw_http import RawServer, completion, http_response

from ragmeter.judges import (
    JudgeTransportError,
    OpenAICompatibleEmbedder,
    OpenAICompatibleJudge,
    RetryPolicy,
    RubricMetric,
    RuleJudge,
    Sample,
    evaluate,
)

RATING = RubricMetric("rating", "Rate the $question answer.", allowed_values=[0, 1])
ANSWER = http_response(completion(json.dumps({"value": 1, "reason": "fine"})))


def drip(byte_every_s: float):
    """Answers correctly, one byte every ``byte_every_s`` seconds (head and body)."""

    def answer(request, index):
        return [(ANSWER[i : i + 1], byte_every_s) for i in range(len(ANSWER))]

    return answer


@pytest.mark.parametrize("lean", [True, False], ids=["lean-transport", "httpx-transport"])
def test_timeout_s_bounds_a_whole_request_even_when_bytes_keep_coming(lean):
    with RawServer(drip(0.25)) as server:
        judge = OpenAICompatibleJudge(
            base_url=server.url(),
            model="m",
            timeout_s=1.0,
            lean_transport=lean,
            retry_policy=RetryPolicy(max_retries=0),
        )
        started = time.monotonic()
        results = evaluate([Sample("first")], [RATING], judge=judge)
        elapsed = time.monotonic() - started
    assert elapsed < 3.0, elapsed
    score = results.rows[0].score
    assert (score.status, score.reason_code) == ("error", "judge_unavailable")
    assert "timeout_s=1 s" in score.message
    assert "queue" in score.message  # a one-at-a-time server's queue counts: say so


@pytest.mark.parametrize("lean", [True, False], ids=["lean-transport", "httpx-transport"])
def test_deadline_s_bounds_a_call_with_its_retries(lean):
    with RawServer(drip(0.25)) as server:
        judge = OpenAICompatibleJudge(
            base_url=server.url(),
            model="m",
            timeout_s=30.0,
            lean_transport=lean,
            retry_policy=RetryPolicy(max_retries=5, initial_delay_s=0.0, deadline_s=1.5),
        )
        started = time.monotonic()
        results = evaluate([Sample("first")], [RATING], judge=judge)
        elapsed = time.monotonic() - started
    assert elapsed < 3.5, elapsed
    score = results.rows[0].score
    assert score.status == "error" and "deadline_s=1.5" in score.message


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("lean", [True, False], ids=["lean-transport", "httpx-transport"])
def test_a_dead_endpoint_stops_the_run_naming_the_url(lean):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    judge = OpenAICompatibleJudge(
        base_url=url,
        model="m",
        lean_transport=lean,
        retry_policy=RetryPolicy(max_retries=2, initial_delay_s=0.01),
    )
    samples = [Sample(f"question {i}") for i in range(20)]
    with pytest.raises(JudgeTransportError) as caught:
        evaluate(samples, [RATING], judge=judge)
    assert caught.value.fatal and url in str(caught.value)
    assert "could not be reached" in str(caught.value)


def test_an_unknown_host_stops_the_run(monkeypatch):
    real_getaddrinfo = socket.getaddrinfo

    def resolve(host, *args, **kwargs):  # no DNS query leaves the machine
        if host == "judge.invalid":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    judge = OpenAICompatibleJudge(
        base_url="http://judge.invalid/v1",
        model="m",
        retry_policy=RetryPolicy(max_retries=1, initial_delay_s=0.01),
    )
    with pytest.raises(JudgeTransportError, match=r"judge\.invalid") as caught:
        evaluate([Sample("q")], [RATING], judge=judge)
    assert caught.value.fatal
    # The resolver's own error is named, not the "no running event loop" the sync entry point
    # met when it looked for a loop.
    assert "Name or service not known" in str(caught.value), str(caught.value)
    assert "event loop" not in str(caught.value)


def test_a_dead_embedding_endpoint_stops_the_run_too():
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    embedder = OpenAICompatibleEmbedder(
        base_url=url, model="e", retry_policy=RetryPolicy(max_retries=0)
    )
    with pytest.raises(JudgeTransportError, match="could not be reached") as caught:
        evaluate(
            [Sample("Q?", "A thing.")], ["answer_relevancy"], judge=RuleJudge(), embedder=embedder
        )
    assert caught.value.fatal


def test_a_dead_endpoint_behind_an_openai_client_stops_the_run():
    import openai

    from ragmeter.judges import OpenAIClientJudge

    url = f"http://127.0.0.1:{_closed_port()}/v1"
    client = openai.OpenAI(base_url=url, api_key="unused")
    judge = OpenAIClientJudge(client, "m", retry_policy=RetryPolicy(max_retries=0))
    with pytest.raises(JudgeTransportError, match="could not be reached") as caught:
        evaluate([Sample("q")], [RATING], judge=judge)
    assert caught.value.fatal
