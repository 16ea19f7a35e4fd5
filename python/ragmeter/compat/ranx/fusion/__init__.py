"""``ranx.fusion``: ranx's fusion of runs, on ragmeter's fusion kernel.

``fuse`` and ``optimize_fusion`` are ranx's (they normalise first, ``norm="min-max"`` by
default). The per-method functions (``comb_sum(runs)``, ``wsum(runs, weights)``,
``rrf(runs, k=60)``, ``probfuse(runs, probs)``...) are ranx's too: like ranx's, they fuse the
runs' scores as given (no normalisation), name the fused run after the method, and the
``*_train(qrels, runs)`` functions return what ranx's return (one NumPy array of probabilities
per run; ``mapfuse_train`` one float per run). Each is a row of :data:`_METHODS` over
:func:`ragmeter.fusion.fuse` / :func:`ragmeter.fusion.train_fusion`, the methods' one
declaration. As in ranx, ``ranx.fusion.bayesfuse`` and ``ranx.fusion.condorcet`` are also
modules, with the helpers ranx's tests import (``_estimate_log_odds``; ``get_candidates``,
``get_results``). Differences from ranx: ties are broken by doc id descending (trec_eval), and
a query mismatch is an :class:`~ragmeter.InvalidInputError` naming the queries."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ....exceptions import InvalidInputError
from ....fusion import METHODS
from ..._ranx_fusion import fuse, optimize_fusion
from ._methods import (
    bordafuse,
    comb_anz,
    comb_gmnz,
    comb_max,
    comb_med,
    comb_min,
    comb_mnz,
    comb_sum,
    isr,
    log_isr,
    logn_isr,
    mapfuse,
    mapfuse_train,
    mixed,
    posfuse,
    posfuse_train,
    probfuse,
    probfuse_train,
    rbc,
    rrf,
    segfuse,
    segfuse_train,
    slidefuse,
    slidefuse_train,
    weighted_bordafuse,
    weighted_condorcet,
    wmnz,
    wsum,
)
from .bayesfuse import bayesfuse, bayesfuse_train
from .condorcet import condorcet

__all__ = [
    "bayesfuse",
    "bayesfuse_train",
    "bordafuse",
    "comb_anz",
    "comb_gmnz",
    "comb_max",
    "comb_med",
    "comb_min",
    "comb_mnz",
    "comb_sum",
    "condorcet",
    "fuse",
    "fusion_switch",
    "isr",
    "log_isr",
    "logn_isr",
    "mapfuse",
    "mapfuse_train",
    "mixed",
    "optimize_fusion",
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
    "weighted_bordafuse",
    "weighted_condorcet",
    "wmnz",
    "wsum",
]


def fusion_switch(method: str) -> Callable[..., Any]:
    """ranx's ``fusion_switch(method)``: the per-method function of a ranx method name
    (``"sum"``, ``"wsum"``, ``"rrf"``, ...)."""
    module = sys.modules[__name__]
    by_ranx_method: dict[str, Callable[..., Any]] = {
        m.name: getattr(module, m.ranx_function) for m in METHODS.values()
    }
    try:
        return by_ranx_method[method]
    except KeyError:
        raise InvalidInputError(
            f"method: {method!r} is not a ranx fusion method; use one of "
            f"{', '.join(sorted(by_ranx_method))}"
        ) from None
