"""The ``metrics=`` argument of a run, resolved to metric objects: :func:`resolve_metrics`.

Built-in metrics are named in :data:`~ragmeter.judges.metrics.BUILTIN_METRICS`. This sits above
both the metrics and the engine: the engine receives metric objects and never imports the
metrics.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..exceptions import InvalidInputError
from .metrics import BUILTIN_METRICS
from .metrics.base import Metric

__all__ = ["resolve_metrics"]


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
