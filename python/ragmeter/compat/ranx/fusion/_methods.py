"""The per-method functions of ``ranx.fusion`` (``comb_sum(runs)``, ``wsum(runs, weights)``,
``probfuse_train(qrels, runs, n_segments)``...): each a row of :data:`_METHODS` over
:func:`ragmeter.fusion.fuse` / :func:`ragmeter.fusion.train_fusion`, the methods' one
declaration. ``bayesfuse`` and ``condorcet`` are made here too, in their own modules (ranx's
``ranx.fusion.bayesfuse`` and ``.condorcet``, which also hold helpers ranx's tests import)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ....fusion import METHODS, FusionMethod
from ....fusion import fuse as _fuse
from ....fusion import train_fusion as _train
from ..._ranx_fusion import _as_dict, _like

__all__ = [
    "bordafuse",
    "comb_anz",
    "comb_gmnz",
    "comb_max",
    "comb_med",
    "comb_min",
    "comb_mnz",
    "comb_sum",
    "isr",
    "log_isr",
    "logn_isr",
    "mapfuse",
    "mapfuse_train",
    "method_function",
    "mixed",
    "posfuse",
    "posfuse_train",
    "probfuse",
    "probfuse_train",
    "rbc",
    "rrf",
    "segfuse",
    "segfuse_train",
    "slidefuse",
    "slidefuse_train",
    "trained",
    "weighted_bordafuse",
    "weighted_condorcet",
    "wmnz",
    "wsum",
]

_NO_DEFAULT = object()


def _ranx_signature(method: FusionMethod) -> tuple[tuple[str, Any], ...]:
    """ranx's positional parameters after ``runs``: the trained parameter first, then the
    method's own (ProbFuse's ``n_segments`` is its training's), with ranx's defaults."""
    names = [method.trained_parameter] if method.trained_parameter else []
    names += [p for p in method.parameters if p != "n_segments"]
    defaults = dict(method.defaults)
    return tuple((name, defaults.get(name, _NO_DEFAULT)) for name in names)


# ranx's function name -> (ragmeter's method, ranx's positional parameters after ``runs`` with
# their defaults, ranx's default name of the fused run): read from the methods' declarations.
_METHODS: dict[str, tuple[str, tuple[tuple[str, Any], ...], str]] = {
    m.ranx_function: (m.name, _ranx_signature(m), m.ranx_run_name) for m in METHODS.values()
}


def _plain(value: Any) -> Any:
    # ranx passes NumPy arrays (probabilities, log-odds) where ragmeter reads lists.
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def method_function(ranx_name: str) -> Callable[..., Any]:
    method, parameters, default_name = _METHODS[ranx_name]
    names = [p for p, _ in parameters]

    def fuse_by_method(runs: Sequence[Any], *args: Any, **kwargs: Any) -> Any:
        if len(args) > len(names):
            raise TypeError(
                f"{ranx_name}() takes runs and at most {len(names)} more positional "
                f"argument(s) ({', '.join(names) or 'none'}), got {len(args)}"
            )
        given = dict(zip(names, args, strict=False))
        name = kwargs.pop("name", default_name)
        for key in kwargs:
            if key not in names or key in given:
                raise TypeError(f"{ranx_name}() got an unexpected keyword argument {key!r}")
        given.update(kwargs)
        params = {}
        for parameter, default in parameters:
            value = given.get(parameter, default)
            if value is _NO_DEFAULT:
                raise TypeError(f"{ranx_name}() missing required argument: {parameter!r}")
            params[parameter] = _plain(value)
        fused = _fuse([_as_dict(r) for r in runs], method=method, norm=None, params=params)
        return _like(runs[0], fused.to_dict(), name)

    fuse_by_method.__name__ = fuse_by_method.__qualname__ = ranx_name
    signature = ", ".join(
        ["runs"] + [p if d is _NO_DEFAULT else f"{p}={d!r}" for p, d in parameters]
    )
    fuse_by_method.__doc__ = (
        f"ranx's ``{ranx_name}({signature}, name={default_name!r})``: ragmeter's "
        f"``{method}`` fusion of the runs' scores as given (no normalisation)."
    )
    return fuse_by_method


comb_sum = method_function("comb_sum")
comb_mnz = method_function("comb_mnz")
comb_max = method_function("comb_max")
comb_min = method_function("comb_min")
comb_med = method_function("comb_med")
comb_anz = method_function("comb_anz")
comb_gmnz = method_function("comb_gmnz")
wsum = method_function("wsum")
wmnz = method_function("wmnz")
mixed = method_function("mixed")
rrf = method_function("rrf")
isr = method_function("isr")
log_isr = method_function("log_isr")
logn_isr = method_function("logn_isr")
bordafuse = method_function("bordafuse")
weighted_bordafuse = method_function("weighted_bordafuse")
weighted_condorcet = method_function("weighted_condorcet")
rbc = method_function("rbc")
posfuse = method_function("posfuse")
probfuse = method_function("probfuse")
segfuse = method_function("segfuse")
slidefuse = method_function("slidefuse")
mapfuse = method_function("mapfuse")


def trained(qrels: Any, runs: Sequence[Any], method: str, n_segments: int | None) -> Any:
    return _train(
        _as_dict(qrels), [_as_dict(r) for r in runs], method, norm=None, n_segments=n_segments
    )


def probfuse_train(qrels: Any, runs: Sequence[Any], n_segments: int) -> list[np.ndarray]:
    """ranx's ``probfuse_train(qrels, runs, n_segments)``: per run, the probability that a
    document of each of ``n_segments`` segments is relevant (Lillis et al., SIGIR 2006)."""
    return [np.asarray(p, dtype=float) for p in trained(qrels, runs, "probfuse", n_segments)]


def posfuse_train(qrels: Any, runs: Sequence[Any]) -> list[np.ndarray]:
    """ranx's ``posfuse_train(qrels, runs)``: per run, the probability of relevance at each
    rank (Lillis et al., 2008)."""
    return [np.asarray(p, dtype=float) for p in trained(qrels, runs, "posfuse", None)]


def segfuse_train(qrels: Any, runs: Sequence[Any]) -> list[np.ndarray]:
    """ranx's ``segfuse_train(qrels, runs)``: per run, the probability of relevance of each
    of SegFuse's growing segments (Shokouhi, ECIR 2007)."""
    return [np.asarray(p, dtype=float) for p in trained(qrels, runs, "segfuse", None)]


def slidefuse_train(qrels: Any, runs: Sequence[Any]) -> list[np.ndarray]:
    """ranx's ``slidefuse_train(qrels, runs)``: per run, the probability of relevance at each
    rank, which SlideFuse averages over a window (Lillis et al., 2008)."""
    return [np.asarray(p, dtype=float) for p in trained(qrels, runs, "slidefuse", None)]


def mapfuse_train(qrels: Any, runs: Sequence[Any]) -> list[float]:
    """ranx's ``mapfuse_train(qrels, runs)``: each run's MAP on ``qrels`` (Lillis et al.,
    2010)."""
    return [float(v) for v in trained(qrels, runs, "mapfuse", None)]
