"""Normalise the ``judge=`` and ``metrics=`` arguments."""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any

from ..exceptions import InvalidInputError
from .metrics import BUILTIN_METRICS, Metric
from .openai_compatible import OpenAIClientJudge, is_openai_client, judge_from_env
from .protocol import as_judge

__all__ = ["METRIC_NAMES", "resolve_judge", "resolve_metrics"]


def _builtin_metrics() -> dict[str, type[Metric]]:
    from .preference import PairwisePreferenceMetric

    return {**BUILTIN_METRICS, "pairwise_preference": PairwisePreferenceMetric}


METRIC_NAMES: tuple[str, ...] = (*BUILTIN_METRICS, "pairwise_preference")


def resolve_judge(judge: Any) -> Any:
    """A judge (or Panel) from ``judge=``.

    ``None`` reads the environment (see :func:`judge_from_env`); an ``openai.OpenAI`` or
    ``AsyncOpenAI`` client becomes an :class:`OpenAIClientJudge` (model from
    ``$RAGMETER_JUDGE_MODEL``); an object with an async ``complete`` is used as is; any other
    callable is wrapped by :func:`as_judge`.
    """
    from .panel import Panel

    if judge is None:
        return judge_from_env()
    if isinstance(judge, Panel):
        return judge
    if is_openai_client(judge):
        return OpenAIClientJudge(judge)
    complete = getattr(judge, "complete", None)
    if complete is not None and inspect.iscoroutinefunction(complete):
        if not isinstance(getattr(judge, "name", None), str):
            raise InvalidInputError(
                f"judge {type(judge).__name__} has no str attribute 'name' (it identifies the "
                "judge in cache keys and reports)"
            )
        return judge
    if callable(judge):
        return as_judge(judge)
    raise InvalidInputError(
        "judge must be a Judge, a Panel, an openai client or a callable, got "
        f"{type(judge).__name__}"
    )


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
    builtins = _builtin_metrics()
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
