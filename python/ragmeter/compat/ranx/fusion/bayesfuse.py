"""ranx's ``ranx.fusion.bayesfuse``: BayesFuse (Aslam and Montague, SIGIR 2001) and the
helper ranx's tests import, ``_estimate_log_odds``, on ragmeter's fusion kernel.

``bayesfuse_train(qrels, runs)`` gives each run's log-odds of relevance per rank (one array of
1000 per run), ``bayesfuse(runs, log_odds)`` sums them per document (a run that does not rank a
document adds ``log(0.001 / 0.999)``), and ``_estimate_log_odds(hit_lists, cut_offs)`` is the
log-odds of one run from its hit lists, as ranx's. The segments are ranx's: ranks 0-5, 5-10,
10-15, 15-20, 20-30, 30-100, 100-200, 200-500 and 500-1000, the ones ragmeter's kernel
declares (``BAYESFUSE_CUT_OFFS`` in ``rust/core/src/fusion/mod.rs``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ....exceptions import InputTypeError, InvalidInputError
from ....fusion import train_fusion
from ._methods import method_function, trained

# _estimate_log_odds is private in ranx too (its tests import it by name), so not in __all__.
__all__ = ["bayesfuse", "bayesfuse_train"]

#: The bounds of BayesFuse's rank segments in ragmeter's kernel (BAYESFUSE_CUT_OFFS in
#: rust/core/src/fusion/mod.rs), ranx's: the only cut-offs ``_estimate_log_odds`` can compute.
#: tests/test_compat_ranx.py checks them against the kernel's output.
_KERNEL_CUT_OFFS = (0, 5, 10, 15, 20, 30, 100, 200, 500, 1000)

bayesfuse = method_function("bayesfuse")


def bayesfuse_train(qrels: Any, runs: Sequence[Any]) -> np.ndarray:
    """ranx's ``bayesfuse_train(qrels, runs)``: per run and rank, the log-odds of relevance
    (Aslam and Montague, SIGIR 2001)."""
    return np.asarray(trained(qrels, runs, "bayesfuse", None), dtype=float)


def _estimate_log_odds(hit_lists: Iterable[Any], cut_offs: Iterable[Any]) -> np.ndarray:
    """ranx's ``_estimate_log_odds(hit_lists, cut_offs)``: the log-odds of relevance at each
    rank of one run, from its hit lists (one 0/1 array per training query, as
    ``ranx.metrics.get_hit_lists`` gives them).

    In each segment ``[cut_offs[i], cut_offs[i + 1])`` the precision of every hit list is
    averaged over the lists, 0 and 1 moved by 0.001, and the segment's ranks get
    ``log(p / (1 - p))``; the array has ``max(cut_offs)`` ranks. Computed by ragmeter's kernel
    (the hit lists become a run with those hits), whose segments are ranx's
    (``_KERNEL_CUT_OFFS``): other cut-offs are refused.

    Raises
    ------
    InvalidInputError
        Cut-offs other than ranx's, a hit list holding something other than 0 and 1.
    """
    if isinstance(cut_offs, str | bytes) or not isinstance(cut_offs, Iterable):
        raise InputTypeError(
            f"cut_offs: expected ranx's cut-offs {list(_KERNEL_CUT_OFFS)}, got "
            f"{type(cut_offs).__name__}"
        )
    given = list(cut_offs)
    if given != list(_KERNEL_CUT_OFFS):
        raise InvalidInputError(
            f"cut_offs: {given} are not ranx's BayesFuse segments {list(_KERNEL_CUT_OFFS)}, the "
            "only ones ragmeter's fusion kernel computes; pass those (BayesFuse is trained with "
            "them: bayesfuse_train(qrels, runs))"
        )
    if isinstance(hit_lists, str | bytes) or not isinstance(hit_lists, Iterable):
        raise InputTypeError(
            f"hit_lists: expected one 0/1 array per query (ranx.metrics.get_hit_lists), got "
            f"{type(hit_lists).__name__}"
        )
    lists = [np.asarray(hits, dtype=float).ravel() for hits in hit_lists]
    for position, hits in enumerate(lists):
        if not np.isin(hits, (0.0, 1.0)).all():
            raise InvalidInputError(
                f"hit_lists: list {position} holds values other than 0 and 1; a hit list marks "
                "each rank relevant (1) or not (0)"
            )
    # One query per hit list, its ids zero-padded so that the kernel, which orders the
    # training queries by id, sums the precisions in the lists' order (as ranx does: the same
    # floating-point sums); ranks by decreasing scores, relevant where the list has a hit.
    width = len(str(len(lists)))
    queries = [f"{i:0{width}d}" for i in range(len(lists))]
    run = {
        q: {str(p): float(hits.size - p) for p in range(hits.size)}
        for q, hits in zip(queries, lists, strict=True)
    }
    qrels = {
        q: {str(p): 1 for p in np.flatnonzero(hits).tolist()}
        for q, hits in zip(queries, lists, strict=True)
    }
    # train_fusion learns from two runs or more; a run's log-odds do not depend on the others.
    learnt = train_fusion(qrels, [run, run], "bayesfuse", norm=None)
    return np.asarray(learnt[0], dtype=float)
