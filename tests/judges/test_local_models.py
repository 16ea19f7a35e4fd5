"""Defaults that make a slow local model usable: bounded answers, bounded retries, honest codes."""

from __future__ import annotations

import json
import logging

import pytest

from ragmeter.judges import (
    NO_MAX_TOKENS,
    JudgeResponse,
    JudgeTransportError,
    Limits,
    OpenAICompatibleEmbedder,
    OpenAICompatibleJudge,
    RetryPolicy,
    RubricMetric,
    Sample,
    ScriptedJudge,
    evaluate,
)
from ragmeter.judges.engine.settings import DEFAULT_MAX_TOKENS, TOKENS_PER_CALL, TOKENS_PER_ITEM
from ragmeter.judges.parsing import OutputParseError, extract_json
from ragmeter.judges.testing import LoopbackOpenAIServer

RATING = RubricMetric("rating", "Rate the $question answer.", allowed_values=[0, 1])


class CountingJudge:
    """Answers every request with ``respond(request)``; counts the calls."""

    def __init__(self, respond, *, max_retries=4):
        self.name = "counting"
        self.respond = respond
        self.calls = 0
        self.limits = Limits(max_concurrency=4)
        self.retry_policy = RetryPolicy(max_retries=max_retries, initial_delay_s=0.0)

    async def complete(self, request):
        self.calls += 1
        return self.respond(request)


def test_requests_carry_a_finite_max_tokens_by_default(server):
    sentences = " ".join(f"Sentence number {i} is here." for i in range(30))
    samples = [Sample("Where is Paris?", "Paris is in France.", (sentences,))]
    judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
    evaluate(samples, ["groundedness", "context_relevancy"], judge=judge)
    limits = {
        r.body["response_format"]["json_schema"]["name"]: r.body.get("max_tokens")
        for r in server.requests
    }
    assert limits["claims"] == DEFAULT_MAX_TOKENS  # no items: a list of claims
    # Labelling calls grow with their items; 30 sentences are one call of 30 items.
    assert limits["context_relevancy_labels"] == TOKENS_PER_CALL + TOKENS_PER_ITEM * 30
    assert 0 < limits["groundedness_verdicts"] < limits["context_relevancy_labels"]
    server.reset()
    evaluate(samples, ["groundedness"], judge=judge, max_tokens=NO_MAX_TOKENS)  # unbounded
    assert all("max_tokens" not in r.body for r in server.requests)


def test_an_answer_cut_at_max_tokens_has_its_own_reason_code():
    def respond(request):
        return JudgeResponse(text='{"value": 1, "reason": "because the', finish_reason="length")

    judge = CountingJudge(respond)
    results = evaluate([Sample("first")], [RATING], judge=judge, max_tokens=64)
    score = results.rows[0].score
    assert (score.status, score.reason_code) == ("error", "judge_output_truncated")
    assert "max_tokens=64" in score.message


@pytest.mark.parametrize(("temperature", "calls"), [(0.0, 2), (0.7, 5)])
def test_a_timed_out_deterministic_prompt_is_retried_once(temperature, calls):
    def respond(request):
        raise JudgeTransportError("took too long", kind="timeout", retryable=True)

    judge = CountingJudge(respond, max_retries=4)
    results = evaluate([Sample("first")], [RATING], judge=judge, temperature=temperature)
    assert results.rows[0].score.reason_code == "judge_unavailable"
    assert judge.calls == calls  # the same prompt at temperature 0 times out the same way


def test_retries_after_timeouts_are_logged_where_a_user_sees_them(caplog):
    def respond(request):
        raise JudgeTransportError("took too long", kind="timeout", retryable=True)

    caplog.set_level(logging.WARNING, logger="ragmeter.judges")
    evaluate([Sample("first")], [RATING], judge=CountingJudge(respond))
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings and "retrying" in warnings[0].getMessage()
    assert "took too long" in warnings[0].getMessage()


def test_a_repeated_unusable_answer_stops_the_re_asks():
    judge = CountingJudge(lambda request: JudgeResponse(text="I think it is fine."))
    results = evaluate([Sample("first")], [RATING], judge=judge, max_parse_retries=3)
    score = results.rows[0].score
    assert score.reason_code == "judge_output_invalid"
    assert judge.calls == 2  # the re-ask got the same text: asking again would too
    assert "same answer" in score.message


def test_a_literal_newline_inside_a_json_string_is_read():
    text = '{"value": 1, "reason": "line one\nline two"}'
    assert extract_json(text) == {"value": 1, "reason": "line one\nline two"}
    judge = ScriptedJudge({"rubric_rating": text})
    results = evaluate([Sample("first")], [RATING], judge=judge)
    assert results.rows[0].value == 1.0 and len(judge.requests) == 1


def test_json_errors_say_where_once():
    with pytest.raises(OutputParseError) as caught:
        extract_json('{"a": "\\q"}')  # an invalid escape
    message = str(caught.value)
    assert "at at" not in message and "line 1 column" in message


def test_a_local_server_gets_a_small_concurrency_by_default():
    local = OpenAICompatibleJudge(base_url="http://127.0.0.1:8000/v1", model="m")
    ipv6 = OpenAICompatibleJudge(base_url="http://[::1]:8000/v1", model="m")
    remote = OpenAICompatibleJudge(base_url="https://api.example.com/v1", model="m", api_key="k")
    assert (local.limits.max_concurrency, ipv6.limits.max_concurrency) == (2, 2)
    assert remote.limits.max_concurrency == 16
    explicit = OpenAICompatibleJudge(
        base_url="http://127.0.0.1:8000/v1", model="m", max_concurrency=8
    )
    assert explicit.limits.max_concurrency == 8
    with LoopbackOpenAIServer(latency_s=0.05) as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
        evaluate(
            [Sample(f"q{i}", "A.", ("c.",)) for i in range(8)], ["context_relevancy"], judge=judge
        )
        assert server.max_in_flight <= 2


def test_per_token_embeddings_are_a_protocol_error_naming_the_cause():
    class PerToken:
        name = "per-token"

        def embed_sync(self, texts):
            return [[[0.1, 0.2], [0.3, 0.4]] for _ in texts]  # one vector per token

    with LoopbackOpenAIServer(embedder=PerToken()) as server:
        embedder = OpenAICompatibleEmbedder(base_url=server.base_url, model="e")
        with pytest.raises(JudgeTransportError, match="one vector per token") as caught:
            evaluate(
                [Sample("Q?", "An answer.")],
                ["answer_relevancy"],
                judge=ScriptedJudge(
                    {
                        "answer_relevancy_questions": {
                            "questions": ["a?", "b?", "c?"],
                            "noncommittal": False,
                        }
                    }
                ),
                embedder=embedder,
            )
    assert caught.value.fatal and "pooling" in str(caught.value)
    assert "float() argument" not in json.dumps(str(caught.value))


def test_truncation_advice_names_max_items_per_call_only_for_calls_with_items():
    """Issue 49 item 5: a call that labels no item cannot be shortened by fewer items per call."""

    def respond(request):
        return JudgeResponse(text='{"value": 1, "reason": "because the', finish_reason="length")

    results = evaluate([Sample("first")], [RATING], judge=CountingJudge(respond), max_tokens=64)
    message = results.rows[0].score.message
    assert "raise max_tokens" in message and "max_items_per_call" not in message

    def cut_labels(request):
        return JudgeResponse(text='{"sentences": [{"id": 1, "relev', finish_reason="length")

    sample = Sample("Where is Paris?", contexts=("Paris is in France. It is big.",))
    labelled = evaluate([sample], ["context_relevancy"], judge=CountingJudge(cut_labels))
    assert labelled.rows[0].score.reason_code == "judge_output_truncated"
    assert "lower max_items_per_call" in labelled.rows[0].score.message
