"""CSV and TSV files with a header row (the column names), read with pyarrow's streaming CSV
reader; compressed files (``.csv.gz``, ``.tsv.zst``...) are decompressed as they are read.

Id columns are always read as text: a CSV file does not say whether ``007`` is a number, and
reading it as one would change the id (and make ``"7"`` and ``"007"`` equal).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from .._inputs import TableColumns
from ..exceptions import InvalidInputError
from ._arrow_files import arrow_errors, needed_columns, pyarrow_module

__all__ = ["header", "open_table"]


def header(first_line: str, delimiter: str) -> list[str]:
    """The column names of a header line."""
    return next(csv.reader(io.StringIO(first_line), delimiter=delimiter), [])


def open_table(path: str, columns: TableColumns, kind: str, delimiter: str) -> Any:
    """A streaming reader over the columns of ``path`` an evaluation of ``kind`` reads."""
    pyarrow = pyarrow_module("pyarrow", path)
    csv_module = pyarrow_module("pyarrow.csv", path)
    kind_name = "CSV" if delimiter == "," else "TSV"
    with arrow_errors(path, kind_name), pyarrow.input_stream(path, compression="detect") as stream:
        head = stream.read(1 << 16)
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace").rstrip("\r").lstrip("\ufeff")
    try:
        names = header(first, delimiter)
    except csv.Error as error:
        raise InvalidInputError(
            f"{path}: the header {first[:80]!r} cannot be read as {kind_name} ({error}); a "
            f"{kind_name} file starts with one line naming its columns"
        ) from None
    if columns.query not in names:
        raise InvalidInputError(
            f"{path}: the header {first[:80]!r} has no column {columns.query!r}; a "
            f"{'CSV' if delimiter == ',' else 'TSV'} file starts with a header naming its "
            f"columns (name them with query_col=, doc_col=, ...)"
        )
    wanted = needed_columns(names, columns, kind, path)
    text = {c: pyarrow.string() for c in (columns.query, columns.doc) if c in wanted}
    with arrow_errors(path, kind_name):
        return csv_module.open_csv(
            path,
            read_options=csv_module.ReadOptions(block_size=1 << 24),
            parse_options=csv_module.ParseOptions(delimiter=delimiter),
            convert_options=csv_module.ConvertOptions(column_types=text, include_columns=wanted),
        )
