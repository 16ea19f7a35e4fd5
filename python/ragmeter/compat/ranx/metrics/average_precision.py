"""``ranx.metrics.average_precision``."""

from __future__ import annotations

from ._functions import average_precision

__all__ = ["average_precision"]
