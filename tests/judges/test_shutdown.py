"""No call outlives the sample it serves: a failed sibling cancels the rest, nothing is orphaned."""

from __future__ import annotations

import asyncio
import logging

from ragmeter.judges import ContextPrecisionMetric, Sample, aevaluate, as_judge, evaluate

SAMPLE = Sample("Q?", "A.", ("first chunk", "second chunk"), reference="R.")
METRIC = ContextPrecisionMetric()  # one call per chunk, in parallel


def judge_with(slow_call):
    async def judge(request):
        if "first chunk" in request.first_user_message():
            return "no JSON here"  # unusable at once: the sample fails
        return await slow_call()

    return as_judge(judge, name="half-broken", takes="request")


def test_aevaluate_leaves_no_task_running_after_a_sample_failed():
    cancelled = []

    async def slow_call():
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return '{"useful": true, "reason": "late"}'

    async def run():
        results = await aevaluate(
            [SAMPLE], [METRIC], judge=judge_with(slow_call), max_parse_retries=0
        )
        current = asyncio.current_task()
        leftovers = [t for t in asyncio.all_tasks() if t is not current]
        return results, leftovers

    results, leftovers = asyncio.run(run())
    assert results.rows[0].score.status == "error"
    assert leftovers == [] and cancelled == [True]


def test_no_unhandled_exception_at_shutdown_when_a_cancelled_call_raises(caplog):
    async def slow_call():
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            # Some client libraries turn a cancellation into their own error.
            raise RuntimeError("the client went away") from None
        return '{"useful": true, "reason": "late"}'

    caplog.set_level(logging.ERROR, logger="asyncio")
    results = evaluate([SAMPLE], [METRIC], judge=judge_with(slow_call), max_parse_retries=0)
    assert results.rows[0].score.status == "error"
    assert "unhandled exception" not in caplog.text
    assert "never retrieved" not in caplog.text
