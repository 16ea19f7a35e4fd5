"""A replay's counts are what happened: no call is counted that did not reach an endpoint."""

from __future__ import annotations

import json
import threading

from ragmeter import JudgeTransportError
from ragmeter.judges import (
    JudgeResponse,
    OpenAICompatibleJudge,
    RetryPolicy,
    RuleJudge,
    Sample,
    evaluate,
)
from ragmeter.judges.testing import LoopbackOpenAIServer

SAMPLE = Sample(
    "Where is Paris?",
    "Paris is in France. Paris is a city.",
    ("Paris is a city in France.",),
    id="paris",
)


class SplitThenFail:
    """Verdict lists lose their last entry (so the batch is split into one call per claim);
    claim 1 alone gets an unusable answer, claim 2 alone is answered only once ``release`` is
    set (its call is cancelled when claim 1 fails, so it never reaches the cache)."""

    name = "split-then-fail"

    def __init__(self) -> None:
        self.rule = RuleJudge()
        self.release = threading.Event()

    def respond(self, request):
        parsed = json.loads(self.rule.respond(request))
        verdicts = parsed.get("verdicts")
        if isinstance(verdicts, list) and len(verdicts) > 1:
            parsed["verdicts"] = verdicts[:-1]
        elif isinstance(verdicts, list) and verdicts and verdicts[0].get("id") == 1:
            return "no idea"
        elif isinstance(verdicts, list):
            self.release.wait(10)
        return json.dumps(parsed)


def test_a_replayed_split_fallback_makes_and_counts_no_call(tmp_path):
    cache = str(tmp_path / "judge.sqlite")
    scripted = SplitThenFail()
    with LoopbackOpenAIServer(judge=scripted) as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m", identity="split")
        first = evaluate([SAMPLE], ["groundedness"], judge=judge, cache=cache, progress=False)
        scripted.release.set()
        base_url = server.base_url
    row = first.rows[0]
    assert row.score.status == "error" and row.total_usage().split_fallbacks == 1

    # The server is stopped: a replay must answer from the cache alone.
    judge = OpenAICompatibleJudge(
        base_url=base_url,
        model="m",
        identity="split",
        retry_policy=RetryPolicy(max_retries=1, jitter=0.0),
    )
    replay = evaluate(
        [SAMPLE], ["groundedness"], judge=judge, cache=cache, retry_errors=False, progress=False
    )
    replayed = replay.rows[0]
    assert (replayed.score.status, replayed.score.reason_code) == (
        row.score.status,
        row.score.reason_code,
    )
    assert "replayed from the cache" in (replayed.score.message or "")
    usage = replayed.total_usage()
    assert (usage.calls, usage.retries, usage.split_fallbacks) == (0, 0, 0)
    assert usage.replayed_failures == 1
    summary = replay.cache_summary()
    assert (summary["called"], summary["called_not_in_cache"], summary["without_call"]) == (
        0,
        0,
        1,
    )
    assert summary["replayed_failures"] == 1
    assert "called the judge" not in repr(replay)

    # The same replay against a live server (the same model, by identity) sends it nothing.
    with LoopbackOpenAIServer() as live:
        judge = OpenAICompatibleJudge(base_url=live.base_url, model="m", identity="split")
        again = evaluate(
            [SAMPLE], ["groundedness"], judge=judge, cache=cache, retry_errors=False, progress=False
        )
        assert live.count("any") == 0
    assert again.rows[0].total_usage().calls == 0


class RefusedOnce:
    """Refuses the first connection (nothing is sent), then answers."""

    name = "refused-once"
    retry_policy = RetryPolicy(max_retries=2, initial_delay_s=0.0, jitter=0.0)

    def __init__(self) -> None:
        self.attempts = 0

    async def complete(self, request):
        self.attempts += 1
        if self.attempts == 1:
            raise JudgeTransportError("connection refused", kind="connect", retryable=True)
        return JudgeResponse(text='{"value": 1, "reason": "fine"}')


def test_a_refused_connection_is_a_retry_not_a_call():
    from ragmeter.judges import RubricMetric

    judge = RefusedOnce()
    rating = RubricMetric("rating", "Rate $question.", allowed_values=[0, 1])
    results = evaluate([Sample("one")], [rating], judge=judge, progress=False)
    usage = results.rows[0].total_usage()
    assert results.rows[0].score.value == 1
    assert judge.attempts == 2
    assert (usage.calls, usage.retries) == (1, 1)
