"""Equality of report data that treats NaN as equal to NaN (reports round-trip NaN)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["canonical"]


def canonical(value: Any) -> Any:
    """A form of ``value`` whose ``==`` treats NaN as equal to NaN (mappings, lists and tuples
    are compared item by item)."""
    if isinstance(value, float) and math.isnan(value):
        return ("<nan>",)
    if isinstance(value, Mapping):
        return {key: canonical(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return tuple(canonical(item) for item in value)
    return value
