"""``ranx.metrics.dcg``."""

from __future__ import annotations

from ._functions import dcg, dcg_burges

__all__ = ["dcg", "dcg_burges"]
