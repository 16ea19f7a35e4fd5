"""What the record readers give: the rows of a file of records (samples, per-item values), where
each row is (``file:line`` or ``file: row i``, for messages) and what kind of file it was.

Each format that holds records (a row of :data:`ragmeter.io.FORMATS` whose ``holds`` names
``"records"``) has a ``read_records(path, *, what, argument, noun, caller)`` in its module that
returns :class:`Records`; :func:`ragmeter.io.read_records` picks the format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from ..manifest import Manifest

__all__ = ["Records"]


class Records(NamedTuple):
    """The rows of a file of records.

    Attributes
    ----------
    rows
        One mapping per record, in order (blank lines and rows left out).
    where
        Where each row is, for messages (``"path:3"``, ``"path: row 2"``).
    table
        Whether the file is a table (CSV, TSV, Parquet: one column per field).
    text
        Whether every cell is text (CSV, TSV: a number, a list or a missing value is written
        as text, and read as its reader decides).
    manifest
        What made the values, when the file says (another harness's result file: the harness,
        its version and the scorers it recorded); None for a plain table.
    """

    rows: list[dict[str, Any]]
    where: list[str]
    table: bool
    text: bool
    manifest: Manifest | None = None
