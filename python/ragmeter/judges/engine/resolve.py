"""Normalise the ``judge=`` argument of a run (a judge or a panel).

The ``metrics=`` argument is resolved above the engine, by
:func:`ragmeter.judges.registry.resolve_metrics`: the engine receives metric objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...exceptions import JudgeConfigurationError
from ..clients.protocol import Judge, JudgeRequest, JudgeResponse
from ..clients.resolve import resolve_judge
from ..panel import Panel

__all__ = ["NoJudge", "resolve_run_judge"]


class NoJudge:
    """The judge of a run whose metrics all say they never ask one (``needs_judge=False``,
    such as a metric that only embeds): it refuses every call, naming the metric's promise."""

    name = "no_judge"

    def __init__(self, metrics: Sequence[str] = ()):
        self.metrics = tuple(metrics)
        self.identity = {"kind": "none", "name": "no_judge"}

    def __repr__(self) -> str:
        return "NoJudge()"

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Refuse: no judge was given, since no metric of the run needed one."""
        raise JudgeConfigurationError(
            f"a metric asked the judge ({request.task!r}) but the run has no judge: every "
            f"metric ({', '.join(self.metrics)}) says needs_judge=False; pass judge= or set "
            "needs_judge=True on the metric that asks"
        )


def resolve_run_judge(judge: Any, metrics: Sequence[Any] | None = None) -> Judge | Panel:
    """A :class:`~ragmeter.judges.Panel` as given, else one judge (see ``resolve_judge``).

    With ``judge=None`` and ``metrics`` none of which needs a judge (``needs_judge=False``),
    a :class:`NoJudge`: the environment is not read and no judge is required.
    """
    if isinstance(judge, Panel):
        return judge
    if (
        judge is None
        and metrics is not None
        and metrics
        and not any(getattr(m, "needs_judge", True) for m in metrics)
    ):
        return NoJudge([str(getattr(m, "name", m)) for m in metrics])
    return resolve_judge(judge)
