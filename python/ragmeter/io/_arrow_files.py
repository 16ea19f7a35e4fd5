"""What the Arrow-based file formats share: pyarrow, imported on first use (the ``arrow``
extra), and the columns a file is read for."""

from __future__ import annotations

from typing import Any

from .._inputs import TableColumns
from .._optional import import_optional

__all__ = ["needed_columns", "pyarrow_module"]


def pyarrow_module(name: str, path: str) -> Any:
    """``pyarrow`` or one of its submodules, or an error naming the ``arrow`` extra."""
    return import_optional(name, extra="arrow", purpose=f"reading {path}")


def needed_columns(names: list[str], columns: TableColumns, kind: str) -> list[str]:
    """The columns of a file with columns ``names`` that an evaluation reads: only those are
    decoded. Missing ones are left for the core to name in its error."""
    wanted = [c for c in columns.wanted(kind) if c in names]
    if kind == "run" and columns.score in wanted and columns.rank in wanted:
        wanted.remove(columns.rank)
    return wanted or names
