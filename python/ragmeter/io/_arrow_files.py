"""What the Arrow-based file formats share: pyarrow, imported on first use (the ``arrow``
extra), and the columns a file is read for."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .._inputs import TableColumns
from .._optional import import_optional, memory_failure, out_of_memory
from ..exceptions import InvalidInputError

__all__ = [
    "arrow_errors",
    "dataset_of",
    "needed_columns",
    "pyarrow_module",
]


@contextmanager
def arrow_errors(path: str, description: str) -> Iterator[None]:
    """pyarrow's errors opening ``path`` (a damaged or truncated file, a CSV row with too few
    fields, a schema whose names are not UTF-8) as an :class:`~ragmeter.InvalidInputError`
    naming the file; OS errors (a missing file) pass through."""
    pyarrow = pyarrow_module("pyarrow", path)
    try:
        yield
    except MemoryError as error:  # pyarrow's ArrowMemoryError too
        raise MemoryError(out_of_memory(f"opening {path} as {description}", error)) from error
    except UnicodeDecodeError as error:
        # pyarrow decodes a damaged schema's names as UTF-8 and lets the error out as it is.
        raise InvalidInputError(
            f"{path}: cannot be read as {description} (its schema holds bytes that are not "
            f"UTF-8 text: {error.reason} at byte {error.start}); is the file damaged, "
            f"truncated or misnamed?"
        ) from None
    except pyarrow.ArrowException as error:
        if isinstance(error, OSError) and error.errno is not None:
            raise
        message = "; ".join(str(a) for a in error.args) or type(error).__name__
        raise InvalidInputError(
            f"{path}: cannot be read as {description} ({message}); is the file damaged, "
            f"truncated or misnamed?"
        ) from None
    except ValueError as error:  # after the subclasses above (ArrowInvalid, UnicodeDecodeError)
        # pyarrow says it is "not built with support for the Parquet file format" when its
        # Parquet module failed to load, which it also does when the memory is exhausted.
        if "not built with support" in str(error) and (cause := _load_failure()) is not None:
            raise MemoryError(
                out_of_memory(f"loading pyarrow's {description} reader", cause)
            ) from error
        raise


def _load_failure() -> BaseException | None:
    """The error of loading pyarrow's Parquet module when it is a lack of memory, else None."""
    try:
        importlib.import_module("pyarrow._parquet")
    except MemoryError as error:
        return error
    except ImportError as error:
        return error if memory_failure(error) else None
    return None


def pyarrow_module(name: str, path: str) -> Any:
    """``pyarrow`` or one of its submodules, or an error naming the ``arrow`` extra."""
    return import_optional(name, extra="arrow", purpose=f"reading {path}")


def needed_columns(names: list[str], columns: TableColumns, kind: str, path: str) -> list[str]:
    """The columns of a file (``path``) with columns ``names`` that an evaluation reads: only
    those are decoded. Missing ones are left for the core to name in its error; a needed
    column named twice is refused (reading the first of them could read the wrong values)."""
    wanted = [c for c in columns.wanted(kind) if c in names]
    if kind == "run" and columns.score in wanted and columns.rank in wanted:
        wanted.remove(columns.rank)
    for name in wanted:
        if names.count(name) > 1:
            raise InvalidInputError(
                f"{path}: there are {names.count(name)} columns named {name!r}; its columns "
                f"are {names}: rename or drop all but one"
            )
    return wanted or names


def dataset_of(path: str, file_format: str, columns: TableColumns, kind: str) -> Any:
    """The pyarrow dataset of ``path`` (``file_format`` ``"parquet"`` or ``"ipc"``). A file
    whose needed column is named twice is refused naming it (pyarrow's own error names none)."""
    dataset_module = pyarrow_module("pyarrow.dataset", path)
    pyarrow = pyarrow_module("pyarrow", path)
    try:
        return dataset_module.dataset(path, format=file_format)
    except pyarrow.ArrowInvalid as error:
        if "duplicate field names" not in str(error) or not os.path.isfile(path):
            raise
        if file_format == "parquet":
            names = pyarrow_module("pyarrow.parquet", path).read_schema(path).names
        else:
            with pyarrow.OSFile(path, "r") as handle:
                names = pyarrow.ipc.open_file(handle).schema.names
        needed_columns(names, columns, kind, path)
        raise
