"""ranx's fusion API with ranx's signatures on ragmeter's core: ``fuse``, ``optimize_fusion``
and ``normalize`` (re-exported by :mod:`ragmeter.compat.ranx`).

Runs may be ranx-style ``Run`` objects (anything with ``to_dict()``) or dicts; results come
back as the class of the first run (through its ``from_dict``), or as a dict. Differences from
ranx: ties are broken by doc id descending (trec_eval), where ranx's order is arbitrary; a
query mismatch is an :class:`~ragmeter.InvalidInputError` naming the queries, not an
``AssertionError``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import _core
from ..exceptions import InvalidInputError
from ..fusion import fuse as _fuse
from ..fusion import optimize_fusion as _optimize

__all__ = ["OptimizationReport", "fuse", "normalize", "optimize_fusion"]


def _as_dict(run: Any) -> Any:
    return run.to_dict() if hasattr(run, "to_dict") else run


def _like(template: Any, data: dict[str, dict[str, float]], name: str) -> Any:
    factory = getattr(type(template), "from_dict", None)
    if factory is None:
        return data
    return factory(data, name=name)


def fuse(
    runs: Sequence[Any],
    norm: str | None = "min-max",
    method: str = "wsum",
    params: dict[str, Any] | None = None,
) -> Any:
    """ranx's ``fuse(runs, norm, method, params)``."""
    fused = _fuse([_as_dict(r) for r in runs], method=method, norm=norm, params=params or {})
    return _like(runs[0], fused.to_dict(), method)


@dataclass(frozen=True)
class OptimizationReport:
    """What ranx's ``return_optimization_report=True`` gives: every configuration tried with
    its score."""

    method: str
    configs: list[str]
    results: list[float]
    metric: str


def optimize_fusion(
    qrels: Any,
    runs: Sequence[Any],
    norm: str | None = "min-max",
    method: str = "wsum",
    metric: str = "ndcg",
    return_optimization_report: bool = False,
    rounding_digits: int = 3,
    show_percentages: bool = False,
    **kwargs: Any,
) -> Any:
    """ranx's ``optimize_fusion``: the best parameters of ``method`` on ``qrels`` (ranx's
    grids; ``step``, ``min_k``... as ranx's keywords; ``show_progress`` is accepted and
    ignored)."""
    kwargs.pop("show_progress", None)
    search = _optimize(
        _as_dict(qrels),
        [_as_dict(r) for r in runs],
        method=method,
        norm=norm,
        metric=metric,
        **kwargs,
    )
    if not return_optimization_report:
        return search.best_params
    configs = [
        str(tuple(t["weights"])) if "weights" in t else str(next(iter(t.values()), ""))
        for t, _ in search.table
    ]
    return search.best_params, OptimizationReport(
        method, configs, [s for _, s in search.table], metric
    )


def normalize(run: Any, norm: str = "min-max") -> Any:
    """ranx's ``normalize(run, norm)`` of one run (borda needs the other runs: use ``fuse``)."""
    if norm == "borda":
        raise InvalidInputError(
            "norm: borda normalises a run against the candidates of the other runs; pass "
            "norm='borda' to fuse instead"
        )
    data = _as_dict(run)
    queries = sorted(data)
    for q in queries:
        if not isinstance(q, str):
            raise InvalidInputError(f"run: query id {q!r} is not a str")
    offsets, doc_ids, scores = _core.fuse_runs(
        [[data[q] for q in queries]], queries, ["run"], method="sum", norm=norm, params={}
    )
    values = scores.tolist()
    out = {
        q: dict(
            zip(
                doc_ids[offsets[i] : offsets[i + 1]],
                values[offsets[i] : offsets[i + 1]],
                strict=True,
            )
        )
        for i, q in enumerate(queries)
    }
    return _like(run, out, getattr(run, "name", None) or "run")
