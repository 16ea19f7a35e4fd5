"""ranx's ``ranx.data_structures.qrels``: :class:`Qrels` and ``get_file_kind``."""

from __future__ import annotations

from .._data import Qrels
from .._kinds import file_kind

__all__ = ["Qrels", "get_file_kind"]


def get_file_kind(path: str = "qrels.json", kind: str | None = None) -> str:
    """The kind of a qrels file, as ranx infers it: ``json``, ``trec`` (also ``.txt``),
    ``gz`` or ``parquet`` (also ``.parq``)."""
    return file_kind(path, kind, ("json", "trec", "gz", "parquet"))
