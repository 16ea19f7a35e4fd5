"""Normalise the ``judge=`` (a judge or a panel) and ``metrics=`` arguments of a run."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...exceptions import InvalidInputError
from ..clients.protocol import Judge
from ..clients.resolve import resolve_judge
from ..metrics import BUILTIN_METRICS
from ..metrics.base import Metric
from ..panel import Panel

__all__ = ["resolve_metrics", "resolve_run_judge"]


def resolve_run_judge(judge: Any) -> Judge | Panel:
    """A :class:`~ragmeter.judges.Panel` as given, else one judge (see ``resolve_judge``)."""
    if isinstance(judge, Panel):
        return judge
    return resolve_judge(judge)


def resolve_metrics(metrics: Any) -> list[Metric]:
    """Metric objects from names (``"groundedness"``), Metric instances or classes."""
    if isinstance(metrics, str | Metric) or (
        isinstance(metrics, type) and issubclass(metrics, Metric)
    ):
        metrics = [metrics]
    if not isinstance(metrics, Iterable):
        raise InvalidInputError(
            f"metrics must be a list of names or Metric objects, got {metrics!r}"
        )
    builtins = BUILTIN_METRICS
    out: list[Metric] = []
    for item in metrics:
        if isinstance(item, str):
            if item not in builtins:
                raise InvalidInputError(
                    f"unknown metric {item!r}; built-in metrics: {sorted(builtins)}"
                )
            out.append(builtins[item]())
        elif isinstance(item, Metric):
            out.append(item)
        elif isinstance(item, type) and issubclass(item, Metric):
            out.append(item())
        else:
            raise InvalidInputError(
                f"metrics must hold names or Metric objects, got {type(item).__name__} "
                "(wrap a function with @ragmeter.judges.metric)"
            )
    if not out:
        raise InvalidInputError("metrics is empty: name at least one metric")
    names = [m.name for m in out]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise InvalidInputError(
            f"two metrics are named {duplicates}: pass name= to tell them apart"
        )
    return out
