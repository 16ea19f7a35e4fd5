"""Arrow IPC files (Feather v2, ``.arrow``, ``.feather``) and IPC streams (``.arrows``),
read with pyarrow without converting a value: the batches are memory-mapped or read as they
are stored."""

from __future__ import annotations

from typing import Any

from .._inputs import TableColumns
from ._arrow_files import arrow_errors, needed_columns, pyarrow_module

__all__ = ["FILE_MAGIC", "STREAM_MAGIC", "open_table", "sniff"]

#: An Arrow IPC file (Feather v2) starts with these bytes.
FILE_MAGIC = b"ARROW1"
#: An Arrow IPC stream starts with a continuation marker.
STREAM_MAGIC = b"\xff\xff\xff\xff"


def sniff(head: bytes) -> bool:
    """Whether a file starting with ``head`` is an Arrow IPC file or stream."""
    return head.startswith(FILE_MAGIC) or head.startswith(STREAM_MAGIC)


def open_table(path: str, columns: TableColumns, kind: str) -> Any:
    """A RecordBatchReader over the columns of ``path`` an evaluation of ``kind`` reads."""
    pyarrow = pyarrow_module("pyarrow", path)
    with open(path, "rb") as handle:
        head = handle.read(len(FILE_MAGIC))
    with arrow_errors(path, "Arrow IPC / Feather"):
        if head.startswith(FILE_MAGIC):
            dataset_module = pyarrow_module("pyarrow.dataset", path)
            dataset = dataset_module.dataset(path, format="ipc")
            wanted = needed_columns(dataset.schema.names, columns, kind)
            return dataset.scanner(columns=wanted).to_reader()
        return pyarrow.ipc.open_stream(pyarrow.memory_map(path))
