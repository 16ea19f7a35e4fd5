"""ranx's ``ranx.data_structures.run``: :class:`Run` and ``get_file_kind``."""

from __future__ import annotations

from .._data import Run
from .._kinds import file_kind

__all__ = ["Run", "get_file_kind"]


def get_file_kind(path: str = "run.json", kind: str | None = None) -> str:
    """The kind of a run file, as ranx infers it: ``json``, ``trec`` (also ``.txt``), ``lz4``,
    ``gz`` or ``parquet`` (also ``.parq``)."""
    return file_kind(path, kind, ("json", "trec", "lz4", "gz", "parquet"))
