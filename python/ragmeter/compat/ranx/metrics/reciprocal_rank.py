"""``ranx.metrics.reciprocal_rank``."""

from __future__ import annotations

from ._functions import reciprocal_rank

__all__ = ["reciprocal_rank"]
