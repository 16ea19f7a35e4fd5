"""``ranx.metrics``: ranx's metric functions over its array form (``metric(qrels, run, k,
rel_lvl)``, per-query values in sorted query order, an undefined value 0), computed by
ragmeter's core; ``ranx.metrics.<name>`` submodules as ranx has them, and ranx's
``get_hit_lists`` (which ranks hold a relevant document)."""

from __future__ import annotations

from .average_precision import average_precision
from .bpref import bpref
from .dcg import dcg, dcg_burges
from .f1 import f1
from .get_hit_lists import get_hit_lists
from .hit_rate import hit_rate
from .hits import hits
from .ndcg import ndcg, ndcg_burges
from .precision import precision
from .r_precision import r_precision
from .rank_biased_precision import rank_biased_precision
from .recall import recall
from .reciprocal_rank import reciprocal_rank

__all__ = [
    "average_precision",
    "bpref",
    "dcg",
    "dcg_burges",
    "f1",
    "get_hit_lists",
    "hit_rate",
    "hits",
    "ndcg",
    "ndcg_burges",
    "precision",
    "r_precision",
    "rank_biased_precision",
    "recall",
    "reciprocal_rank",
]
