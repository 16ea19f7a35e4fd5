"""Parquet files and directories of Parquet files (datasets, e.g. partitioned by query id),
read with pyarrow's dataset scanner: only the columns an evaluation needs, batch by batch,
decoded on pyarrow's threads while the Rust core reads the batches before.

Page checksums (the CRC-32 a writer may store in each page header, as pyarrow does with
``write_page_checksum=True``) are verified: a page whose bytes changed is an error naming the
file, never other values. Pages written without a checksum cannot be verified."""

from __future__ import annotations

import os
from typing import Any

from .._files import read_regular_text
from .._inputs import TableColumns
from .._optional import import_optional
from ..exceptions import InvalidInputError
from ._arrow_files import arrow_errors, dataset_of, needed_columns, pyarrow_module
from ._records import Records

__all__ = ["MAGIC", "open_table", "read_records", "sniff"]

#: A Parquet file starts (and ends) with these bytes.
MAGIC = b"PAR1"


def sniff(head: bytes) -> bool:
    """Whether a file starting with ``head`` is a Parquet file."""
    return head.startswith(MAGIC)


def open_table(path: str, columns: TableColumns, kind: str) -> Any:
    """A RecordBatchReader over the columns of ``path`` (a file or a directory of files) that
    an evaluation of ``kind`` (``"qrels"`` or ``"run"``) reads."""
    dataset_module = pyarrow_module("pyarrow.dataset", path)
    with arrow_errors(path, "Parquet"):
        dataset = dataset_of(os.fspath(path), "parquet", columns, kind)
        if not dataset.files:
            # An empty directory (or one of hidden files only) would read as no rows at all.
            raise InvalidInputError(
                f"{path}: is a directory without Parquet files; judgments and runs are read "
                "from a file, or from a directory of Parquet files (a dataset)"
            )
        wanted = needed_columns(dataset.schema.names, columns, kind, path)
        verified = dataset_module.ParquetFragmentScanOptions(page_checksum_verification=True)
        return dataset.scanner(columns=wanted, fragment_scan_options=verified).to_reader()


def read_records(
    path: str, *, what: str, argument: str, noun: str = "row", caller: str = ""
) -> Records:
    """The rows of a Parquet file (``path: row i``; the ``arrow`` extra, named with ``caller``
    when it is missing)."""
    parquet = import_optional(
        "pyarrow.parquet",
        extra="arrow",
        purpose=f"{caller or 'reading'} of a Parquet file ({path})",
    )
    if not os.path.isfile(path):
        read_regular_text(path, what, argument)  # the usual file errors
    try:
        table = parquet.read_table(path)
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        raise InvalidInputError(
            f"{path}: cannot be read as Parquet ({exc}); check that it is a Parquet file, or "
            "pass format= with its real format"
        ) from None
    rows = table.to_pylist()
    return Records(rows, [f"{path}: row {i}" for i in range(len(rows))], table=True, text=False)
