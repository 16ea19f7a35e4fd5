"""CSV and TSV files with a header row (the column names), read with pyarrow's streaming CSV
reader; compressed files (``.csv.gz``, ``.tsv.zst``...) are decompressed as they are read,
at most :func:`ragmeter.io.set_max_decompressed_bytes` bytes of them (the limit the TREC
readers apply: a guard against compression bombs).

Id columns are always read as text: a CSV file does not say whether ``007`` is a number, and
reading it as one would change the id (and make ``"7"`` and ``"007"`` equal).
"""

from __future__ import annotations

import csv
import io
import lzma
from typing import Any

from .. import _core
from .._files import read_regular_text
from .._inputs import TableColumns
from ..exceptions import InvalidInputError
from ._arrow_files import arrow_errors, needed_columns, pyarrow_module
from ._records import Records

__all__ = ["header", "open_table", "read_records"]


def header(first_line: str, delimiter: str) -> list[str]:
    """The column names of a header line."""
    return next(csv.reader(io.StringIO(first_line), delimiter=delimiter), [])


class _LimitedStream(io.RawIOBase):
    """A decompressing stream that refuses to give more than ``limit`` bytes: pyarrow's CSV
    reader decompresses without a bound, so the bound is applied to what it reads."""

    def __init__(self, stream: Any, path: str, limit: int) -> None:
        super().__init__()
        self._stream = stream
        self._path = path
        self._limit = limit
        self._given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        chunk = self._stream.read(len(view))
        self._given += len(chunk)
        if self._given > self._limit:
            raise InvalidInputError(
                f"{self._path}: decompresses to more than {self._limit} bytes, the limit "
                f"max_decompressed_bytes (a guard against compression bombs); if the file is "
                f"genuine, raise it with ragmeter.io.set_max_decompressed_bytes() or the "
                f"environment variable RAGMETER_MAX_DECOMPRESSED_BYTES"
            )
        view[: len(chunk)] = chunk
        return len(chunk)

    def close(self) -> None:
        self._stream.close()
        super().close()


# ragmeter's compression names (``_formats.COMPRESSIONS``) as pyarrow's codecs; pyarrow has no
# xz codec, so xz is decompressed by Python's lzma module.
_PYARROW_CODECS = {"gzip": "gzip", "bzip2": "bz2", "zstd": "zstd"}


def _decompressed(pyarrow: Any, path: str, compression: str | None) -> Any:
    if compression is None:
        return pyarrow.input_stream(path)
    if compression == "xz":
        return lzma.open(path, "rb")
    return pyarrow.input_stream(path, compression=_PYARROW_CODECS[compression])


def open_table(
    path: str,
    columns: TableColumns,
    kind: str,
    delimiter: str,
    *,
    compression: str | None = None,
) -> Any:
    """A streaming reader over the columns of ``path`` an evaluation of ``kind`` reads.

    ``compression`` (a key of ``_formats.COMPRESSIONS``, from the file's magic bytes, whatever
    its name says): what the file decompresses to is read, at most the
    ``max_decompressed_bytes`` limit of it."""
    pyarrow = pyarrow_module("pyarrow", path)
    csv_module = pyarrow_module("pyarrow.csv", path)
    kind_name = "CSV" if delimiter == "," else "TSV"
    with arrow_errors(path, kind_name), _decompressed(pyarrow, path, compression) as stream:
        try:
            head = stream.read(1 << 16)
        except (lzma.LZMAError, EOFError) as error:
            raise InvalidInputError(
                f"{path}: cannot be read as xz-compressed {kind_name} ({error}); is the file "
                f"damaged or truncated?"
            ) from None
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
    source: Any = pyarrow.input_stream(path)
    if compression is not None:
        limit = _core.max_decompressed_bytes(None)
        source = _LimitedStream(_decompressed(pyarrow, path, compression), path, limit)
    with arrow_errors(path, kind_name):
        return csv_module.open_csv(
            source,
            read_options=csv_module.ReadOptions(block_size=1 << 24),
            parse_options=csv_module.ParseOptions(delimiter=delimiter),
            convert_options=csv_module.ConvertOptions(column_types=text, include_columns=wanted),
        )


def read_records(
    path: str,
    *,
    what: str,
    argument: str,
    noun: str = "row",
    caller: str = "",
    delimiter: str = ",",
) -> Records:
    """The rows of a CSV (or, with ``delimiter="\\t"``, TSV) file with a header line, each
    located by its line (``path:3``, counted across quoted line breaks); every cell is text
    (an empty cell ``""``). Refused naming the line: an empty file, a header that names a
    column twice or leaves one unnamed, a row of another number of cells, a malformed row."""
    text = read_regular_text(path, what, argument).removeprefix("\ufeff")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        names = next(reader, None)
        if names is None:
            raise InvalidInputError(f"{path}: is empty; a {noun}s CSV starts with a header line")
        duplicates = sorted({h for h in names if names.count(h) > 1})
        if duplicates or "" in names:
            problem = f"repeats {duplicates}" if duplicates else "has an unnamed column"
            raise InvalidInputError(
                f"{path}:1: the header {problem}; name every column once (header: {names})"
            )
        rows: list[dict[str, Any]] = []
        where: list[str] = []
        end = reader.line_num
        for record in reader:
            location = f"{path}:{end + 1}"
            end = reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != len(names):
                raise InvalidInputError(
                    f"{location}: {len(record)} cells for {len(names)} columns "
                    f"({', '.join(names)}); quote cells that hold the delimiter"
                )
            rows.append(dict(zip(names, record, strict=True)))
            where.append(location)
    except csv.Error as exc:
        raise InvalidInputError(f"{path}:{reader.line_num}: not a valid CSV row ({exc})") from None
    return Records(rows, where, table=True, text=True)


def read_tsv_records(
    path: str, *, what: str, argument: str, noun: str = "row", caller: str = ""
) -> Records:
    """:func:`read_records` of a TSV file."""
    return read_records(
        path, what=what, argument=argument, noun=noun, caller=caller, delimiter="\t"
    )
