"""Arrow IPC files (Feather v2, ``.arrow``, ``.feather``) and IPC streams (``.arrows``),
read with pyarrow without converting a value.

Nothing is memory-mapped: a mapped file that is cut or rewritten while it is read kills the
process (SIGBUS) when a page past its new end is touched. A stream is read into memory whole
(one snapshot, however the file changes after) and must end with the end-of-stream marker
every writer closes it with: a stream cut at a batch boundary would otherwise read as a
shorter table. An IPC file is read through its footer with ordinary reads.
"""

from __future__ import annotations

from typing import Any

from .._inputs import TableColumns
from ..exceptions import InvalidInputError
from ._arrow_files import arrow_errors, dataset_of, needed_columns, pyarrow_module

__all__ = ["END_OF_STREAM", "FILE_MAGIC", "STREAM_MAGIC", "open_table", "sniff"]

#: An Arrow IPC file (Feather v2) starts with these bytes.
FILE_MAGIC = b"ARROW1"
#: An Arrow IPC stream starts with a continuation marker.
STREAM_MAGIC = b"\xff\xff\xff\xff"
#: An Arrow IPC stream ends with these bytes (the continuation marker and a length of 0;
#: streams of Arrow before 0.15 end with the last four only).
END_OF_STREAM = b"\xff\xff\xff\xff\x00\x00\x00\x00"


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
            dataset = dataset_of(path, "ipc", columns, kind)
            wanted = needed_columns(dataset.schema.names, columns, kind, path)
            return dataset.scanner(columns=wanted).to_reader()
        with open(path, "rb") as handle:
            data = handle.read()
        if not data.endswith(END_OF_STREAM[4:]):
            raise InvalidInputError(
                f"{path}: the Arrow IPC stream does not end with the end-of-stream marker "
                f"(it ends with {data[-8:]!r}): it is truncated or was still being written"
            )
        return pyarrow.ipc.open_stream(pyarrow.BufferReader(data))
