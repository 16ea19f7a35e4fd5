"""``ranx.metrics.f1``."""

from __future__ import annotations

from ._functions import f1

__all__ = ["f1"]
