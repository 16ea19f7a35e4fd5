"""``ir_measures.measures.accuracy``: the ``Accuracy`` measure object."""

from __future__ import annotations

from . import MEASURES

__all__ = ["Accuracy"]

Accuracy = MEASURES["Accuracy"]
