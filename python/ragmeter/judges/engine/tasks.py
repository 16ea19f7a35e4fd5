"""Event-loop plumbing: run a coroutine from sync code, and gather without orphans.

Every task the engine starts ends before the call that started it returns: :func:`gather_all`
cancels and awaits the siblings of a failed task (``asyncio.gather`` leaves them running, to
call the judge for nothing and to die at shutdown with "unhandled exception during
asyncio.run() shutdown"), and :func:`run_sync` cancels and awaits whatever a custom metric may
have left behind before its loop closes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["gather_all", "run_sync"]

T = TypeVar("T")


async def gather_all(*coroutines: Coroutine[Any, Any, T]) -> list[T]:
    """The results of ``coroutines`` run concurrently, in order.

    When one raises, the others are cancelled and awaited, then its exception propagates (the
    first one raised; later ones are retrieved, never left to the loop's exception handler).
    """
    if len(coroutines) == 1:
        return [await coroutines[0]]
    tasks: list[asyncio.Task[T]] = []
    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(coroutine) for coroutine in coroutines]
    except BaseExceptionGroup as failure:
        raise _first_leaf(failure) from None
    return [task.result() for task in tasks]


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first


async def _finish_leftovers() -> None:
    current = asyncio.current_task()
    leftovers = [task for task in asyncio.all_tasks() if task is not current]
    for task in leftovers:
        task.cancel()
    if leftovers:
        # return_exceptions retrieves every outcome: nothing reaches the loop's handler.
        await asyncio.gather(*leftovers, return_exceptions=True)


class _Outcome:
    """The value of a run, boxed: its repr does not show the value.

    ``asyncio.run`` in the main thread swaps SIGINT handlers when it starts and ends, and
    ``signal.signal``/``getsignal`` on Python 3.11 format ``repr(handler)``: a
    ``functools.partial`` holding the main task, whose repr shows the task's result. For a
    ``JudgeResults`` of 2,000 rows that repr (summaries, usage, cost) costs more CPU than
    0.05 ms a row, twice per run, for a string nobody reads.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value


def run_sync(coroutine_factory: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to completion from sync code, even inside a running event loop.

    The coroutine runs on a new event loop: in this thread, or in a worker thread when this
    thread already runs a loop (Jupyter, an async web app), so the caller's loop is never
    patched (no ``nest_asyncio``). Tasks still pending when it returns are cancelled and awaited.
    """

    async def main() -> _Outcome:
        try:
            return _Outcome(await coroutine_factory())
        finally:
            await _finish_leftovers()

    try:
        asyncio.get_running_loop()
        loop_running = True
    except RuntimeError:
        loop_running = False
    if not loop_running:
        # Outside the except block: an error of the run must not carry "no running event
        # loop" as its context (error messages report the root of the chain).
        outcome = asyncio.run(main())
    else:
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            outcome = pool.submit(asyncio.run, main()).result()
    value: T = outcome.value
    return value
