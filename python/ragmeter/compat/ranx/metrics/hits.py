"""``ranx.metrics.hits``."""

from __future__ import annotations

from ._functions import hits

__all__ = ["hits"]
