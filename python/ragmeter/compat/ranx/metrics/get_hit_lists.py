"""ranx's ``ranx.metrics.get_hit_lists``: per query, which ranks hold a relevant document."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...._inputs import trec_order
from ....exceptions import InvalidInputError
from .._arrays import as_mapping

__all__ = ["get_hit_lists"]


def get_hit_lists(qrels: Any, run: Any, k: int = 0, rel_lvl: int = 1) -> list[np.ndarray]:
    """ranx's ``get_hit_lists(qrels, run, k=0, rel_lvl=1)``: per query (in sorted order, or by
    position for ranx's arrays), a float array with 1.0 at each rank whose document has a
    grade of at least ``rel_lvl``, else 0.0, over the top ``k`` ranks (0, or a ``k`` beyond the
    ranking: all of them). ``qrels`` and ``run`` are ranx's arrays (``to_typed_list()``), the
    drop-in's :class:`Qrels` and :class:`Run`, or dicts; a ranking is ordered as ragmeter's
    kernel ranks it (score descending, ties by doc id descending; an array in its row order).

    Raises
    ------
    InvalidInputError
        ``k`` or ``rel_lvl`` that is not an integer, a negative ``k``.

    Examples
    --------
    >>> [h.tolist() for h in get_hit_lists({"q1": {"d2": 1}}, {"q1": {"d1": 0.9, "d2": 0.5}})]
    [[0.0, 1.0]]
    """
    for name, value in (("k", k), ("rel_lvl", rel_lvl)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise InvalidInputError(f"{name}: expected an int, got {value!r}")
    if k < 0:
        raise InvalidInputError(f"k: the number of ranks must be 0 (all) or more, got {k}")
    judged, ranked = as_mapping(qrels, "qrels"), as_mapping(run, "run")
    lists = []
    for query_id in sorted(judged):
        relevant = {d for d, grade in judged[query_id].items() if grade >= rel_lvl}
        ranking = trec_order(ranked.get(query_id, {}))
        if k:
            ranking = ranking[:k]
        lists.append(np.array([1.0 if d in relevant else 0.0 for d in ranking]))
    return lists
