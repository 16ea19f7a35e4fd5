"""``ranx.metrics.rank_biased_precision``."""

from __future__ import annotations

from ._functions import rank_biased_precision

__all__ = ["rank_biased_precision"]
