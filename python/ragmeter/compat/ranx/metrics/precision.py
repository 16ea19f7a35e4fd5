"""``ranx.metrics.precision``."""

from __future__ import annotations

from ._functions import precision

__all__ = ["precision"]
