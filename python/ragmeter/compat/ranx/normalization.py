"""``ranx.normalization``: ranx's score normalisations, on ragmeter's fusion kernel.

``norm(run, norm)`` and the per-normalisation functions (``min_max_norm(run, invert=False)``,
``max_norm``, ``sum_norm``, ``zmuv_norm``, ``rank_norm``, ``borda_norm(runs)``) return new
runs and leave their inputs as they were, as ranx's do; ``norm_switch(name)`` is ranx's lookup
by name. The values are those of :data:`ragmeter.fusion.NORMALIZATIONS`, the normalisations'
one declaration (tests/test_fusion_ranx.py checks them against ranx)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...exceptions import InvalidInputError
from ...fusion import fuse as _fuse
from .._ranx_fusion import _as_dict, _like
from .._ranx_fusion import normalize as norm

__all__ = [
    "borda_norm",
    "max_norm",
    "min_max_norm",
    "norm",
    "norm_switch",
    "rank_norm",
    "sum_norm",
    "zmuv_norm",
]


def min_max_norm(run: Any, invert: bool = False) -> Any:
    """ranx's ``min_max_norm(run, invert=False)``: ``(s - min) / (max - min)`` per query;
    ``invert=True`` gives ``(max - s) / (max - min)`` (for distances)."""
    return norm(run, "min-max-inverted" if invert else "min-max")


def max_norm(run: Any) -> Any:
    """ranx's ``max_norm(run)``: ``s / max`` per query."""
    return norm(run, "max")


def sum_norm(run: Any) -> Any:
    """ranx's ``sum_norm(run)``: ``(s - min) / sum(s - min)`` per query (Montague and Aslam,
    CIKM 2001)."""
    return norm(run, "sum")


def zmuv_norm(run: Any) -> Any:
    """ranx's ``zmuv_norm(run)``: zero mean, unit variance per query."""
    return norm(run, "zmuv")


def rank_norm(run: Any) -> Any:
    """ranx's ``rank_norm(run)``: ``1 - (rank - 1) / n`` per query."""
    return norm(run, "rank")


def borda_norm(runs: Sequence[Any]) -> list[Any]:
    """ranx's ``borda_norm(runs)``: each run's Borda points against the candidates of all
    ``runs`` (a candidate a run did not retrieve shares the remaining points equally), one
    normalised run per run, each keeping its run's name.

    Computed as the weighted sum with weight 1 on that run and 0 on the others, under
    ``norm="borda"``: the fused candidates are all runs' documents, and each score is that run's
    Borda value alone."""
    data = [_as_dict(r) for r in runs]
    out = []
    for i, run in enumerate(runs):
        weights = [1.0 if j == i else 0.0 for j in range(len(runs))]
        fused = _fuse(data, method="wsum", norm="borda", params={"weights": weights})
        out.append(_like(run, fused.to_dict(), getattr(run, "name", None) or "run"))
    return out


def norm_switch(method: str = "min-max") -> Callable[..., Any]:
    """ranx's ``norm_switch(method)``: the normalisation function of a ranx name
    (``"min-max"``/``"min_max"``, ``"min-max-inverted"``/``"min_max_inverted"``, ``"max"``,
    ``"sum"``, ``"zmuv"``, ``"rank"``, ``"borda"``)."""
    if method == "borda":
        return borda_norm
    if method in {"min_max", "min-max"}:
        return lambda run: min_max_norm(run, invert=False)
    if method in {"min_max_inverted", "min-max-inverted"}:
        return lambda run: min_max_norm(run, invert=True)
    by_name: dict[str, Callable[[Any], Any]] = {
        "max": max_norm,
        "rank": rank_norm,
        "sum": sum_norm,
        "zmuv": zmuv_norm,
    }
    if method not in by_name:
        raise InvalidInputError(
            f"method: normalisation {method!r} is not supported; use one of borda, max, "
            "min-max, min-max-inverted, rank, sum, zmuv"
        )
    return by_name[method]
