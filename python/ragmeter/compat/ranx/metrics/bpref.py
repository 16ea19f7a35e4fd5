"""``ranx.metrics.bpref``."""

from __future__ import annotations

from ._functions import bpref

__all__ = ["bpref"]
