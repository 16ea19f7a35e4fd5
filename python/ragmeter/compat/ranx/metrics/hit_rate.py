"""``ranx.metrics.hit_rate``."""

from __future__ import annotations

from ._functions import hit_rate

__all__ = ["hit_rate"]
