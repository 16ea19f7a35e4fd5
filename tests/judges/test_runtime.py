"""Retry policy, sync/async entry points, progress, dry runs, fault injection, inputs."""

from __future__ import annotations

import asyncio
import email.utils
import io
import random
import sys
import time
from types import SimpleNamespace

import pandas as pd
import pytest

from ragmeter import (
    InvalidInputError,
    JudgeOutputError,
    JudgeTransportError,
    MissingDependencyError,
)
from ragmeter.judges import (
    FaultyJudge,
    JudgeResponse,
    OpenAICompatibleJudge,
    Panel,
    RetryPolicy,
    RuleJudge,
    Sample,
    ScriptedJudge,
    aevaluate,
    as_judge,
    evaluate,
    judge_json,
    pairwise_preference,
)
from ragmeter.judges.clients.limits import classify_status, parse_retry_after
from ragmeter.judges.sample import coerce_samples

SAMPLES = [
    Sample("Where is Paris?", "Paris is in France. It is big.", ("Paris is in France.",), id="a"),
    Sample(
        "Who wrote Hamlet?", "Shakespeare wrote Hamlet.", ("Hamlet is by Shakespeare.",), id="b"
    ),
    Sample("What is blue?", "The sky is blue. Grass is green.", ("The sky is blue.",), id="c"),
]


def test_backoff_is_exponential_with_bounded_jitter():
    policy = RetryPolicy(initial_delay_s=1.0, multiplier=2.0, max_delay_s=5.0, jitter=0.5)
    rng = random.Random(0)
    delays = [policy.delay_s(attempt, None, rng) for attempt in range(5)]
    bounds = [(0.5, 1.0), (1.0, 2.0), (2.0, 4.0), (2.5, 5.0), (2.5, 5.0)]
    assert all(lo <= d <= hi for d, (lo, hi) in zip(delays, bounds, strict=True))
    assert policy.delay_s(0, 7.5, rng) == 7.5
    assert RetryPolicy(max_retry_after_s=10).delay_s(0, 3600, rng) == 10


def test_retry_after_parsing():
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "1500", "Retry-After": "9"}) == 1.5
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= parse_retry_after({"Retry-After": future}) <= 31


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (408, "", (True, False)),
        (409, "", (True, False)),
        (429, "rate limited", (True, False)),
        (429, '{"error": {"code": "insufficient_quota"}}', (False, True)),
        (500, "", (True, False)),
        (503, "", (True, False)),
        (400, "", (False, False)),
        (422, "", (False, False)),
        (401, "", (False, True)),
        (403, "", (False, True)),
        (404, "", (False, True)),
    ],
)
def test_status_classification(status, body, expected):
    assert classify_status(status, body) == expected


def test_the_deadline_stops_retries_that_would_overrun_it():
    judge = ScriptedJudge(
        {"claims": JudgeTransportError("busy", status=429, retryable=True, retry_after=5.0)}
    )
    judge.retry_policy = RetryPolicy(deadline_s=1.0)
    results = evaluate([SAMPLES[0]], ["groundedness"], judge=judge)
    assert results.rows[0].score.reason_code == "judge_unavailable"
    assert len(judge.requests) == 1


def test_sync_evaluate_works_inside_a_running_event_loop():
    async def notebook_cell():
        return evaluate(SAMPLES, ["groundedness"], judge=RuleJudge())

    inside = asyncio.run(notebook_cell())
    assert inside.values("groundedness") == evaluate(
        SAMPLES, ["groundedness"], judge=RuleJudge()
    ).values("groundedness")


def test_aevaluate_matches_evaluate():
    results = asyncio.run(
        aevaluate(SAMPLES, ["groundedness", "context_relevancy"], judge=RuleJudge())
    )
    assert (
        results.means()
        == evaluate(SAMPLES, ["groundedness", "context_relevancy"], judge=RuleJudge()).means()
    )


def test_progress_callback_sees_every_unit():
    seen = []
    evaluate(
        SAMPLES,
        ["groundedness", "faithfulness"],
        judge=RuleJudge(),
        progress=lambda d, t: seen.append((d, t)),
    )
    assert seen == [(i, 6) for i in range(1, 7)]


def test_a_progress_bar_needs_tqdm(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    with pytest.raises(MissingDependencyError, match=r"ragmeter\[progress\]"):
        evaluate(SAMPLES, ["groundedness"], judge=RuleJudge(), progress=True)


def test_a_dry_run_makes_no_call_and_predicts_the_calls(server, tmp_path):
    judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
    metrics = ["groundedness", "faithfulness", "context_relevancy", "answer_relevance"]
    estimate = evaluate(SAMPLES, metrics, judge=judge, dry_run=True, prices={"m": (1.0, 2.0)})
    assert server.requests == []
    actual = evaluate(SAMPLES, metrics, judge=judge, cache=str(tmp_path / "c.sqlite"))
    assert estimate.calls == actual.total_usage().calls == server.count("chat")
    assert estimate.cost == pytest.approx(
        estimate.prompt_tokens / 1000 * 1.0 + estimate.completion_tokens / 1000 * 2.0
    )
    assert "judge calls" in str(estimate)
    cached = evaluate(SAMPLES, metrics, judge=judge, dry_run=True, cache=str(tmp_path / "c.sqlite"))
    # In-run reuse (the claims groundedness and faithfulness share) counts as a cache hit.
    assert (cached.calls, cached.cache_hits) == (0, estimate.calls + estimate.cache_hits)


def test_injected_faults_are_recovered_or_reported_never_invented():
    metrics = ["groundedness", "context_relevancy"]
    samples = [
        Sample(
            f"Where is city {i}?",
            f"City {i} is in France. It is old. It has a river.",
            (f"City {i} is in France. It has a river.",),
        )
        for i in range(12)
    ]
    clean = evaluate(samples, metrics, judge=RuleJudge())
    faulty = FaultyJudge(
        RuleJudge(),
        seed=3,
        p_malformed=0.25,
        p_truncated=0.1,
        p_wrong_count=0.25,
        p_timeout=0.1,
        p_429=0.1,
    )
    results = evaluate(samples, metrics, judge=faulty)
    assert all(count > 0 for count in faulty.injected.values()), faulty.injected
    total = results.total_usage()
    assert total.reasks > 0 and total.retries > 0
    for row, reference in zip(results.rows, clean.rows, strict=True):
        assert row.score.status in ("ok", "error")
        if row.score.status == "ok":
            assert row.score.value == reference.score.value
    for name in metrics:
        summary = results.summary(name)
        assert summary.n_ok + summary.n_error == 12


def test_callables_are_judges():
    rule = RuleJudge()

    def prompt_only(prompt: str) -> str:
        assert prompt.startswith("You are a strict")
        return '{"claims": ["Paris is in France."]}'

    async def async_messages(messages):
        assert messages[0]["role"] == "system"
        return {"verdicts": [{"id": 1, "verdict": 1, "reason": "async"}]}

    def request_level(request):
        return JudgeResponse(text=rule.respond(request))

    sample = SAMPLES[0]
    by_prompt = as_judge(prompt_only, takes="prompt", name="p")
    assert (
        evaluate(
            [sample],
            ["groundedness"],
            judge=Panel([by_prompt, as_judge(request_level, takes="request", name="r")]),
        )
        .rows[0]
        .judge_scores["r"]
        .status
        == "ok"
    )

    def mixed(messages):
        if "### Claims" in messages[1]["content"]:
            return {"verdicts": [{"id": 1, "verdict": 0, "reason": "sync"}]}
        return {"claims": ["one claim"]}

    assert evaluate([sample], ["groundedness"], judge=mixed).values("groundedness") == [0.0]
    wrong_type = as_judge(lambda messages: 42, name="wrong")
    score = evaluate([sample], ["groundedness"], judge=wrong_type).rows[0].score
    assert (score.status, score.reason_code) == ("error", "judge_exception")
    assert "42" in score.message or "int" in score.message
    assert (
        evaluate(
            [sample],
            ["groundedness"],
            judge=Panel([as_judge(async_messages, name="a"), by_prompt], aggregate="mean"),
        )
        .rows[0]
        .judge_scores["a"]
        .status
        == "error"
    )  # async_messages answers verdicts to a claims prompt


def test_judge_json_helper():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    judge = ScriptedJudge({"count": {"n": 3}})
    assert judge_json(judge, [{"role": "user", "content": "count"}], schema) == {"n": 3}
    with pytest.raises(JudgeOutputError, match="n must be even") as caught:
        judge_json(
            judge,
            [{"role": "user", "content": "count"}],
            schema,
            validate=lambda parsed: [] if parsed["n"] % 2 == 0 else ["n must be even"],
        )
    # The re-ask got the same answer word for word, so asking a third time was pointless.
    assert caught.value.attempts == 2 and len(caught.value.errors) == 2
    assert "same answer again" in str(caught.value)
    with pytest.raises(InvalidInputError, match="one judge"):
        judge_json(Panel([judge]), [{"role": "user", "content": "count"}], schema)
    with pytest.raises(InvalidInputError, match="role"):
        judge_json(judge, [{"content": "no role"}], schema)


def test_pairwise_preference_helper():
    score = pairwise_preference(
        "Where is the Eiffel Tower?",
        "In Paris, the Eiffel Tower stands.",
        "I like cheese.",
        judge=RuleJudge(),
    )
    assert (score.value, score.evidence["winner"]) == (1.0, "A")


def test_samples_from_dicts_objects_and_frames():
    records = [
        {
            "user_input": "Q1?",
            "response": "A1.",
            "retrieved_contexts": ["c1"],
            "ground_truth": "R1.",
        },
        {
            "question": "Q2?",
            "answer": "A2.",
            "contexts": [SimpleNamespace(page_content="c2")],
            "id": "x",
        },
    ]
    samples = coerce_samples(records)
    assert samples[0] == Sample("Q1?", "A1.", ("c1",), reference="R1.", id="0")
    assert samples[1].contexts == ("c2",) and samples[1].id == "x"
    assert coerce_samples(pd.DataFrame(records[:1]))[0].reference == "R1."
    with pytest.raises(InvalidInputError, match="repeats the id"):
        coerce_samples([{"question": "a", "id": 1}, {"question": "b", "id": "1"}])
    with pytest.raises(InvalidInputError, match="no 'question'"):
        coerce_samples([{"answer": "a"}])
    with pytest.raises(InvalidInputError, match=r"contexts\[0\]"):
        Sample("Q?", contexts=(3,))


def test_metric_arguments_are_checked():
    with pytest.raises(InvalidInputError, match="built-in metrics"):
        evaluate(SAMPLES, ["groundednes"], judge=RuleJudge())
    with pytest.raises(InvalidInputError, match="named"):
        evaluate(SAMPLES, ["groundedness", "groundedness"], judge=RuleJudge())
    with pytest.raises(InvalidInputError, match="on_error"):
        evaluate(SAMPLES, ["groundedness"], judge=RuleJudge(), on_error="ignore")


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_progress_bar_is_shown_by_default_on_a_terminal(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    evaluate(SAMPLES, ["groundedness"], judge=RuleJudge())
    assert "judging" in terminal.getvalue()
    piped = io.StringIO()  # a log file, CI: no bar
    monkeypatch.setattr(sys, "stderr", piped)
    evaluate(SAMPLES, ["groundedness"], judge=RuleJudge())
    assert piped.getvalue() == ""
    monkeypatch.setattr(sys, "stderr", terminal := _Terminal())
    evaluate(SAMPLES, ["groundedness"], judge=RuleJudge(), progress=False)
    assert terminal.getvalue() == ""
