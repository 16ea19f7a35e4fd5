"""The OpenAI-compatible clients against a real HTTP server on 127.0.0.1 that misbehaves on cue."""

from __future__ import annotations

import asyncio
import gc
import json
import logging

import httpx
import openai
import pytest

from ragmeter.judges import (
    JudgeContext,
    JudgeTransportError,
    OpenAIClientJudge,
    OpenAICompatibleEmbedder,
    OpenAICompatibleJudge,
    RetryPolicy,
    RubricMetric,
    RuleJudge,
    RunSettings,
    Sample,
    evaluate,
)
from ragmeter.judges.accounting import CallStats
from ragmeter.judges.clients.limits import RateLimiter
from ragmeter.judges.engine.cache import open_cache
from ragmeter.judges.engine.runtime import Runtime
from ragmeter.judges.testing import Fault, HashEmbedder, LoopbackOpenAIServer

SCHEMA = {
    "title": "rating",
    "type": "object",
    "properties": {"value": {"enum": [0, 1]}, "reason": {"type": "string"}},
    "required": ["value", "reason"],
    "additionalProperties": False,
}
MESSAGES = [{"role": "user", "content": "Rate this answer."}]

GROUNDED = Sample("Where is Paris?", "Paris is in France.", ("Paris is in France.",), id="grounded")
UNGROUNDED = Sample(
    "Where is Paris?", "Berlin is large.", ("Paris is in France.",), id="ungrounded"
)


def ask(judge, *, sleeps=None, cache=None, settings=None, messages=MESSAGES, schema=SCHEMA):
    """One judge_json call through a fresh runtime; returns (answer, stats)."""

    async def record(delay):
        sleeps.append(delay)

    async def run():
        runtime = Runtime(
            cache=open_cache(cache),
            settings=settings or RunSettings(),
            sleep=record if sleeps is not None else None,
        )
        stats = CallStats()
        try:
            answer = await JudgeContext(runtime, judge, stats).judge_json(messages, schema)
        finally:
            await judge.aclose()
        return answer, stats

    return asyncio.run(run())


def fixed(text):
    return LoopbackOpenAIServer(judge=_Fixed(text))


class _Fixed:
    name = "fixed"

    def __init__(self, text):
        self.text = text

    def respond(self, request):
        return self.text


OK_ANSWER = json.dumps({"value": 1, "reason": "fine"})


def test_request_body_headers_and_values():
    with LoopbackOpenAIServer(api_key="sk-loopback-key") as server:
        judge = OpenAICompatibleJudge(
            base_url=server.base_url, model="judge-m", api_key="sk-loopback-key"
        )
        results = evaluate([GROUNDED, UNGROUNDED], ["groundedness"], judge=judge)
        first = server.requests[0]
    # RuleJudge behind HTTP: one claim each; "Paris is in France." is in the context, "Berlin
    # is large." shares no content word with it.
    assert results.values("groundedness") == [1.0, 0.0]
    assert first.authorized
    body = first.body
    assert (body["model"], body["temperature"], body["seed"]) == ("judge-m", 0.0, 0)
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "claims"
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["response_format"]["json_schema"]["schema"]["title"] == "claims"
    usage = results.rows[0].total_usage()
    assert usage.calls == 2 and not usage.tokens_estimated and usage.prompt_tokens > 0


def test_retry_after_is_honoured():
    sleeps = []
    with fixed(OK_ANSWER) as server:
        server.enqueue(Fault.http(429, retry_after=7))
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
        answer, stats = ask(judge, sleeps=sleeps)
        assert server.count("chat") == 2
    assert answer == {"value": 1, "reason": "fine"}
    assert sleeps == [7.0]
    assert (stats.calls, stats.retries) == (2, 1)


def test_server_errors_are_retried_with_jittered_backoff():
    sleeps = []
    with fixed(OK_ANSWER) as server:
        server.enqueue(Fault.http(500), Fault.http(503), Fault.http(408))
        policy = RetryPolicy(initial_delay_s=0.5, multiplier=2.0, jitter=0.5)
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m", retry_policy=policy)
        _, stats = ask(judge, sleeps=sleeps)
    assert stats.retries == 3
    assert 0.25 <= sleeps[0] <= 0.5 and 0.5 <= sleeps[1] <= 1.0 and 1.0 <= sleeps[2] <= 2.0


def test_retries_stop_after_the_budget():
    sleeps = []
    with fixed(OK_ANSWER) as server:
        server.enqueue(*[Fault.http(502)] * 3)
        judge = OpenAICompatibleJudge(
            base_url=server.base_url, model="m", retry_policy=RetryPolicy(max_retries=2)
        )
        with pytest.raises(JudgeTransportError, match="HTTP 502") as caught:
            ask(judge, sleeps=sleeps)
        assert server.count("chat") == 3
    assert caught.value.retryable and len(sleeps) == 2


@pytest.mark.parametrize("status", [400, 422])
def test_client_errors_are_not_retried(status):
    with LoopbackOpenAIServer() as server:
        server.enqueue(Fault.http(status, message="context length exceeded"))
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
        results = evaluate([GROUNDED, UNGROUNDED], ["groundedness"], judge=judge, max_pending=1)
        assert server.count("chat") == 1 + 2  # the rejected call, then the other sample's two
    rows = {r.sample_id: r.score for r in results.rows}
    assert rows["grounded"].reason_code == "judge_request_rejected"
    assert "context length exceeded" in rows["grounded"].message


@pytest.mark.parametrize(
    ("fault", "fragment"),
    [
        (Fault.http(403), "HTTP 403"),
        (Fault.http(404), "HTTP 404"),
        (
            Fault.http(429, message="You exceeded your quota: insufficient_quota"),
            "insufficient_quota",
        ),
    ],
)
def test_fatal_statuses_stop_the_whole_run(fault, fragment):
    with fixed(OK_ANSWER) as server:
        server.enqueue(fault)
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
        with pytest.raises(JudgeTransportError, match=fragment) as caught:
            evaluate([GROUNDED], ["groundedness"], judge=judge)
        assert server.count("chat") == 1
    assert caught.value.fatal and not caught.value.retryable


def test_a_wrong_key_is_fatal_and_never_echoed():
    with fixed(OK_ANSWER) as server:
        server_key = "sk-the-right-one"
        server._api_key = server_key
        judge = OpenAICompatibleJudge(
            base_url=server.base_url, model="m", api_key="sk-WRONG-secret-9"
        )
        with pytest.raises(JudgeTransportError, match="HTTP 401") as caught:
            evaluate([GROUNDED], ["groundedness"], judge=judge)
    assert "OPENAI_API_KEY" in str(caught.value)
    assert "sk-WRONG-secret-9" not in str(caught.value)


@pytest.mark.parametrize("fault", [Fault.malformed_body(), Fault.drop_connection()])
def test_broken_replies_are_retried(fault):
    with fixed(OK_ANSWER) as server:
        server.enqueue(fault)
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
        answer, stats = ask(judge, sleeps=[])
    assert answer["value"] == 1 and stats.retries == 1


def test_a_slow_reply_times_out_and_is_retried():
    with fixed(OK_ANSWER) as server:
        server.enqueue(Fault.slow(3.0))
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m", timeout_s=0.3)
        answer, stats = ask(judge, sleeps=[])
    assert answer["value"] == 1 and stats.retries == 1


def test_unusable_content_is_reasked_over_http():
    with fixed(OK_ANSWER) as server:
        server.enqueue(Fault.reply("I would say the answer is good."), Fault.reply('{"value": 7}'))
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
        answer, stats = ask(judge)
        third = server.requests[2].body["messages"]
    assert answer["value"] == 1 and stats.reasks == 2
    assert [m["role"] for m in third] == ["user", "assistant", "user", "assistant", "user"]
    assert third[1]["content"] == "I would say the answer is good."
    assert "no JSON" in third[2]["content"]
    assert "7 is not one of 0, 1" in third[4]["content"]


def test_wrong_item_counts_over_http_are_reasked_then_split():
    sample = Sample(
        "Where is Paris?", "Paris is in France. Paris is a city.", ("Paris is a city in France.",)
    )
    with LoopbackOpenAIServer() as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
        # Claims come from the RuleJudge; the batched verdict answer loses a claim each time.
        original = server.judge
        calls = []

        class Truncating:
            name = "truncating"

            def respond(self, request):
                calls.append(request)
                text = original.respond(request)
                parsed = json.loads(text)
                if "verdicts" in parsed and len(parsed["verdicts"]) > 1:
                    parsed["verdicts"] = parsed["verdicts"][:1]
                return json.dumps(parsed)

        server.judge = Truncating()
        results = evaluate([sample], ["groundedness"], judge=judge)
    usage = results.rows[0].total_usage()
    assert results.rows[0].score.value == 1.0
    # One re-ask, which repeats the answer word for word: no further re-ask, one call per claim.
    assert (usage.reasks, usage.split_fallbacks, usage.calls) == (1, 1, 1 + 2 + 2)


def test_structured_output_falls_back_and_is_remembered():
    with fixed(OK_ANSWER) as server:
        server.reject_json_schema = 500  # like llama-cpp-python's server
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
        ask(judge)
        ask(judge)
        formats = [r.body["response_format"] for r in server.requests]
    assert [f["type"] for f in formats] == ["json_schema", "json_object", "json_object"]
    assert formats[1]["schema"] == SCHEMA
    assert judge.capabilities()["mode"] == "json_object_schema"


def test_prompt_only_output_when_no_response_format_is_accepted():
    with fixed(OK_ANSWER) as server:
        server.reject_response_format = 400
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
        answer, stats = ask(judge)
        last = server.requests[-1].body
    assert answer["value"] == 1 and stats.capability_fallbacks == 3
    assert "response_format" not in last
    assert '"title": "rating"' in last["messages"][-1]["content"]


def test_a_rejected_seed_is_dropped_and_remembered():
    with fixed(OK_ANSWER) as server:
        server.reject_seed = True
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
        ask(judge)
        ask(judge)
        seeds = ["seed" in r.body for r in server.requests]
    assert seeds == [True, False, False]
    assert judge.capabilities()["seed"] is False


def test_forced_structured_output_does_not_negotiate():
    with fixed(OK_ANSWER) as server:
        server.reject_json_schema = 400
        judge = OpenAICompatibleJudge(
            base_url=server.base_url, model="m", structured_output="json_schema"
        )
        with pytest.raises(JudgeTransportError, match="HTTP 400"):
            ask(judge)
        assert server.count("chat") == 1


def test_embeddings_over_http():
    texts = ["Where is Paris?", "Paris is in France.", "Paris is in France."]
    with LoopbackOpenAIServer() as server:
        embedder = OpenAICompatibleEmbedder(base_url=server.base_url, model="e", batch_size=2)

        async def run():
            try:
                return await embedder.embed_with_usage(texts)
            finally:
                await embedder.aclose()

        vectors, tokens = asyncio.run(run())
        bodies = [r.body["input"] for r in server.requests]
    assert vectors == HashEmbedder().embed_sync(texts)
    assert bodies == [texts[:2], texts[2:]]
    assert tokens == sum(-(-len(t) // 4) for t in texts)


def test_wrong_embedding_counts_are_retried_then_reported():
    sample = Sample("Where is Paris?", "Paris is in France.")
    with LoopbackOpenAIServer() as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
        embedder = OpenAICompatibleEmbedder(
            base_url=server.base_url,
            model="e",
            retry_policy=RetryPolicy(max_retries=1, initial_delay_s=0),
        )
        server.enqueue(Fault.wrong_embedding_count(-1))
        ok = evaluate([sample], ["answer_relevancy"], judge=judge, embedder=embedder)
        server.enqueue(Fault.wrong_embedding_count(-1), Fault.wrong_embedding_count(+1))
        failed = evaluate([sample], ["answer_relevancy"], judge=judge, embedder=embedder)
    assert ok.rows[0].score.status == "ok" and ok.rows[0].total_usage().retries == 1
    score = failed.rows[0].score
    assert (score.status, score.reason_code) == ("error", "judge_unavailable")
    assert "returned 3 embeddings" in score.message and "for 2 texts" in score.message


def test_concurrency_is_capped_per_endpoint():
    rubric = RubricMetric("r", "Rate $answer", allowed_values=[0, 1])
    samples = [Sample(f"Q{i}?", f"A{i}.") for i in range(12)]
    with LoopbackOpenAIServer(judge=_Fixed(OK_ANSWER), latency_s=0.05) as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m", max_concurrency=3)
        results = evaluate(samples, [rubric], judge=judge)
        assert server.max_in_flight <= 3
    assert results.summary("r").n_ok == 12


def test_rate_limiter_paces_request_starts():
    now = [100.0]
    waits = []

    async def sleep(delay):
        waits.append(delay)
        now[0] += delay

    async def run():
        limiter = RateLimiter(120, clock=lambda: now[0], sleep=sleep)
        for _ in range(4):
            await limiter.acquire()

    asyncio.run(run())
    assert waits == [0.5, 0.5, 0.5]


def test_mock_transport_can_stand_in_for_the_network():
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json={"choices": [{"message": {"content": OK_ANSWER}}]})

    judge = OpenAICompatibleJudge(
        base_url="http://judge.invalid/v1", model="m", transport=httpx.MockTransport(handler)
    )
    answer, stats = ask(judge)
    assert answer["value"] == 1 and stats.tokens_estimated
    assert seen[0]["model"] == "m"


# The official openai SDK against the same server ---------------------------------------------


def test_the_openai_sdk_speaks_to_the_loopback_server(server):
    client = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
    models = [m.id for m in client.models.list()]
    reply = client.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "### Answer\nParis is in France.\n"}],
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "claims", "schema": {"title": "claims", "type": "object"}},
        },
    )
    embeddings = client.embeddings.create(model="e", input=["a b", "c"])
    assert models == ["loopback-judge"]
    assert json.loads(reply.choices[0].message.content) == {"claims": ["Paris is in France."]}
    assert reply.usage.prompt_tokens > 0
    assert [e.embedding for e in embeddings.data] == HashEmbedder().embed_sync(["a b", "c"])


@pytest.mark.parametrize("client_class", [openai.OpenAI, openai.AsyncOpenAI])
def test_an_openai_client_is_a_judge(server, client_class, monkeypatch):
    client = client_class(base_url=server.base_url, api_key="sk-test")
    server.enqueue(Fault.http(429, retry_after=0))
    monkeypatch.setenv("RAGMETER_JUDGE_MODEL", "env-model")
    results = evaluate([GROUNDED, UNGROUNDED], ["groundedness"], judge=client)
    assert results.values("groundedness") == [1.0, 0.0]
    assert results.manifest["judge"]["kind"] == "openai_client"
    assert server.requests[0].body["model"] == "env-model"
    # The SDK's own retries are off; ragmeter's policy retried the 429 once.
    assert sum(r.total_usage().retries for r in results.rows) == 1
    # The SDK's async client, left open, schedules its aclose() on whatever event loop runs
    # when the garbage collector finds it: a later test's, which then logs "Task exception was
    # never retrieved" (its connections belong to evaluate's closed loop). Let it go here,
    # outside any loop.
    del client, results
    gc.collect()


def test_an_openai_client_judge_negotiates_like_the_http_judge(server):
    server.reject_json_schema = 500
    judge = OpenAIClientJudge(openai.OpenAI(base_url=server.base_url, api_key="x"), model="m")
    results = evaluate([GROUNDED], ["groundedness"], judge=judge)
    assert results.values("groundedness") == [1.0]
    assert judge.capabilities()["mode"] == "json_object_schema"


# Secrets --------------------------------------------------------------------------------------


def test_the_api_key_never_leaks(tmp_path, caplog):
    key = "sk-loopback-TOPSECRET-0123456789"
    caplog.set_level(logging.DEBUG, logger="ragmeter.judges")
    with LoopbackOpenAIServer(api_key=key) as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m", api_key=key)
        embedder = OpenAICompatibleEmbedder(base_url=server.base_url, model="e", api_key=key)
        server.enqueue(Fault.http(500), Fault.http(400, message=f"bad request from {key}"))
        cache = tmp_path / "cache.sqlite"
        results = evaluate(
            [GROUNDED, UNGROUNDED],
            ["groundedness", "answer_relevancy"],
            judge=judge,
            embedder=embedder,
            cache=str(cache),
            max_pending=1,
        )
        assert all(r.authorized for r in server.requests)
    rejected = [r.score for r in results.rows if r.score.status == "error"]
    assert rejected and "bad request from ***" in rejected[0].message
    leaks = {
        "repr": repr(judge) + repr(embedder),
        "jsonl": results.to_jsonl(),
        "report": json.dumps(results.to_report_dict()),
        "logs": caplog.text,
        "cache": cache.read_bytes().decode("utf-8", "replace"),
    }
    assert {where for where, text in leaks.items() if key in text or "TOPSECRET" in text} == set()
    assert "***" in repr(judge)


def test_rule_judge_over_http_equals_rule_judge_in_process():
    samples = [GROUNDED, UNGROUNDED]
    metrics = ["context_relevancy", "groundedness", "faithfulness", "answer_relevance"]
    local = evaluate(samples, metrics, judge=RuleJudge())
    with LoopbackOpenAIServer() as server:
        remote = evaluate(
            samples, metrics, judge=OpenAICompatibleJudge(base_url=server.base_url, model="m")
        )
    assert [r.score.value for r in remote.rows] == [r.score.value for r in local.rows]
