"""Normalise the ``judge=`` argument of a run (a judge or a panel).

The ``metrics=`` argument is resolved above the engine, by
:func:`ragmeter.judges.registry.resolve_metrics`: the engine receives metric objects.
"""

from __future__ import annotations

from typing import Any

from ..clients.protocol import Judge
from ..clients.resolve import resolve_judge
from ..panel import Panel

__all__ = ["resolve_run_judge"]


def resolve_run_judge(judge: Any) -> Judge | Panel:
    """A :class:`~ragmeter.judges.Panel` as given, else one judge (see ``resolve_judge``)."""
    if isinstance(judge, Panel):
        return judge
    return resolve_judge(judge)
