"""``ranx.metrics.ndcg``."""

from __future__ import annotations

from ._functions import ndcg, ndcg_burges

__all__ = ["ndcg", "ndcg_burges"]
