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


def test_run_sync_never_formats_the_value_it_returns():
    # asyncio.run swaps SIGINT handlers in the main thread, and Python 3.11 formats the
    # handler (a partial holding the main task, whose repr shows the task's result): a large
    # JudgeResults was rendered twice per evaluate() for nothing.
    from ragmeter.judges.engine.tasks import run_sync

    class Loud:
        reprs = 0

        def __repr__(self) -> str:
            Loud.reprs += 1
            return "Loud()"

    async def make() -> Loud:
        return Loud()

    value = run_sync(make)
    assert isinstance(value, Loud) and Loud.reprs == 0

    got: list[Loud] = []

    async def inside_a_loop() -> None:
        got.append(run_sync(make))  # in a worker thread

    asyncio.run(inside_a_loop())
    assert isinstance(got[0], Loud) and Loud.reprs == 0
