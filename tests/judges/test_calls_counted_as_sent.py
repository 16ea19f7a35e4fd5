"""A run's usage counts exactly the requests the endpoint received: every retry, whatever
failed (an HTTP error, a timeout, a dropped connection, a body that is not JSON, a rate limit),
never a call that was not sent (issue 49 item 5: "fresh runs report 2 more calls than the server
received"). The oracle is the loopback server's own record of the requests it received."""

from __future__ import annotations

import pytest

from ragmeter.judges import OpenAICompatibleEmbedder, OpenAICompatibleJudge, Sample, evaluate
from ragmeter.judges.testing import Fault, LoopbackOpenAIServer

SAMPLES = [
    Sample(
        f"What is {i}?",
        f"It is {i}. The sky is blue.",
        (f"{i} is a number.", "The sky is blue."),
        reference=f"{i}.",
        id=f"s{i}",
    )
    for i in range(8)
]
METRICS = ["groundedness", "faithfulness", "context_relevancy", "answer_relevancy"]


@pytest.mark.parametrize(
    "faults",
    [
        [],
        [Fault.http(500)] * 3,
        [Fault.slow(2.0)] * 2,
        [Fault.drop_connection()] * 3,
        [Fault.malformed_body()] * 3,
        [Fault.http(429, retry_after=0.05)] * 3,
    ],
    ids=["none", "http-500", "timeout", "dropped", "not-json", "rate-limited"],
)
def test_usage_counts_the_requests_the_server_received(faults):
    with LoopbackOpenAIServer() as server:
        server.enqueue(*faults)
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m", timeout_s=0.5)
        embedder = OpenAICompatibleEmbedder(base_url=server.base_url, model="e")
        results = evaluate(SAMPLES, METRICS, judge=judge, embedder=embedder, progress=False)
        received = list(server.requests)
    usage = results.total_usage()
    chats = sum(1 for r in received if r.path.endswith("/chat/completions"))
    embeddings = sum(1 for r in received if r.path.endswith("/embeddings"))
    assert (usage.calls, usage.embedding_calls) == (chats, embeddings)
    assert usage.retries == len(faults)
    assert all(row.score.status == "ok" for row in results.rows)
