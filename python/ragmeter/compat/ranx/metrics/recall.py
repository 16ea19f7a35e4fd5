"""``ranx.metrics.recall``."""

from __future__ import annotations

from ._functions import recall

__all__ = ["recall"]
