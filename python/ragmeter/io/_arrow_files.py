"""What the Arrow-based file formats share: pyarrow, imported on first use (the ``arrow``
extra), and the columns a file is read for."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .._inputs import TableColumns
from .._optional import import_optional
from ..exceptions import InvalidInputError

__all__ = ["arrow_errors", "needed_columns", "pyarrow_module"]


@contextmanager
def arrow_errors(path: str, description: str) -> Iterator[None]:
    """pyarrow's errors opening ``path`` (a damaged or truncated file, a CSV row with too few
    fields) as an :class:`~ragmeter.InvalidInputError` naming the file; OS errors (a missing
    file) pass through."""
    pyarrow = pyarrow_module("pyarrow", path)
    try:
        yield
    except pyarrow.ArrowException as error:
        if isinstance(error, OSError) and error.errno is not None:
            raise
        message = "; ".join(str(a) for a in error.args) or type(error).__name__
        raise InvalidInputError(
            f"{path}: cannot be read as {description} ({message}); is the file damaged, "
            f"truncated or misnamed?"
        ) from None


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
