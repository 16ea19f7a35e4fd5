"""A failing endpoint is logged by its state changes (and a summary), its retries at DEBUG."""

from __future__ import annotations

import logging
import socket

import pytest

from ragmeter import JudgeTransportError
from ragmeter.judges import OpenAICompatibleJudge, RetryPolicy, RubricMetric, Sample, evaluate
from ragmeter.judges.testing import Fault, LoopbackOpenAIServer, ScriptedJudge

RATING = RubricMetric("rating", "Rate $question.", allowed_values=[0, 1])


def _rater() -> ScriptedJudge:
    # The loopback server's default RuleJudge answers only prompts that declare an offline
    # rule; a rubric has none, so the server is given this judge.
    return ScriptedJudge({"rubric_rating": lambda request: {"value": 1, "reason": "fine"}})


SAMPLES = [Sample(f"question {i}", id=str(i)) for i in range(24)]
POLICY = RetryPolicy(max_retries=4, initial_delay_s=0.01, max_delay_s=0.05)


def _dead_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # closed again: nothing listens there


def _records(caplog, *levels):
    return [r for r in caplog.records if r.name == "ragmeter.judges" and r.levelno in levels]


def test_a_dead_endpoint_takes_a_few_lines_and_its_retries_are_at_debug(caplog):
    caplog.set_level(logging.DEBUG, logger="ragmeter.judges")
    url = f"http://127.0.0.1:{_dead_port()}/v1"
    judge = OpenAICompatibleJudge(base_url=url, model="m", max_concurrency=8, retry_policy=POLICY)
    with pytest.raises(JudgeTransportError) as raised:
        evaluate(SAMPLES, [RATING], judge=judge, progress=False)
    assert raised.value.fatal
    shown = _records(caplog, logging.INFO, logging.WARNING, logging.ERROR)
    messages = [r.getMessage() for r in shown]
    # The in-flight note, 'is failing', 'gave up' and the run's summary: nothing per attempt.
    assert len(shown) <= 4, messages
    assert sum("is failing" in m for m in messages) == 1
    assert sum("gave up a call" in m for m in messages) == 1
    (summary,) = [m for m in messages if "over this run" in m]
    assert url in summary and "still failing at the end" in summary
    details = [r.getMessage() for r in _records(caplog, logging.DEBUG)]
    retries = [m for m in details if m.startswith("retrying")]
    assert retries and all(url in m for m in retries)
    assert any("could not be reached" in m for m in retries)


def test_a_recovering_endpoint_says_failing_then_answering_again(caplog):
    caplog.set_level(logging.DEBUG, logger="ragmeter.judges")
    with LoopbackOpenAIServer(judge=_rater()) as server:
        server.enqueue(*[Fault.http(503, message="warming up")] * 6)
        # Requests go one at a time, so the first answer comes after the 6 faults; with 6
        # retries a call, none gives up however the faults fall.
        policy = RetryPolicy(max_retries=6, initial_delay_s=0.01, max_delay_s=0.05)
        judge = OpenAICompatibleJudge(
            base_url=server.base_url, model="m", max_concurrency=1, retry_policy=policy
        )
        results = evaluate(SAMPLES[:4], [RATING], judge=judge, progress=False)
    assert [r.score.status for r in results.rows] == ["ok"] * 4
    messages = [
        r.getMessage() for r in _records(caplog, logging.INFO, logging.WARNING, logging.ERROR)
    ]
    failing = [m for m in messages if "is failing" in m]
    assert len(failing) == 1 and failing[0].startswith("retrying") and "warming up" in failing[0]
    assert sum(m.startswith(f"{server.base_url} answers again (") for m in messages) == 1
    # Issue 49 item 5: the recovery is at the failing line's level (WARNING), so a log shown
    # from WARNING up says that the endpoint answered again.
    warned = [r.getMessage() for r in _records(caplog, logging.WARNING)]
    assert sum(m.startswith(f"{server.base_url} answers again (") for m in warned) == 1
    (summary,) = [m for m in messages if "over this run" in m]
    assert "6 retries" in summary and "answering at the end" in summary
    assert len(messages) <= 4, messages
    assert len([m for m in _records(caplog, logging.DEBUG) if "retrying" in m.getMessage()]) == 5


def test_a_healthy_run_logs_no_retry_line(caplog):
    caplog.set_level(logging.DEBUG, logger="ragmeter.judges")
    with LoopbackOpenAIServer(judge=_rater()) as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m", max_concurrency=1)
        evaluate(SAMPLES[:3], [RATING], judge=judge, progress=False)
    assert not [r for r in caplog.records if "retr" in r.getMessage()]
