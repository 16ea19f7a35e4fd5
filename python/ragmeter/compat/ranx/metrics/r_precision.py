"""``ranx.metrics.r_precision``."""

from __future__ import annotations

from ._functions import r_precision

__all__ = ["r_precision"]
