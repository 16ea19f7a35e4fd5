"""Files of each item's cluster (several questions about one passage, one document, one
conversation): :func:`read_clusters`, what ``compare(clusters=PATH)``, ``ragmeter compare
--clusters`` and ``ragmeter gate --clusters`` read.

A file of clusters is any file of records :func:`~ragmeter.io.read_records` reads (CSV, TSV,
Parquet, JSON lines, a JSON list of objects) with a ``query_id`` column and a ``cluster``
column; other columns are ignored, so a long or wide table of per-item values (which has both)
is a file of clusters too, each item on as many rows as it has values. Refused, naming the
file and line: a missing column, an empty id or cluster, an item in two clusters.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .._per_query_forms import item_id
from ..exceptions import InputTypeError, InvalidInputError
from ._formats import read_records

__all__ = ["read_clusters"]


def read_clusters(
    path: str | os.PathLike[str] | Mapping[Any, Any],
    *,
    format: str | None = None,
    argument: str = "clusters",
) -> dict[Any, Any]:
    """``{item: cluster}`` from the ``query_id`` and ``cluster`` columns of a file of records
    (see the module documentation), or from a mapping ``{item: cluster}`` given in memory.

    Parameters
    ----------
    path
        The file, or a mapping (returned as a dict, its ids checked).
    format
        Its format (default: from its suffix).
    argument
        The argument named in errors.

    Returns
    -------
    dict
        Each item's cluster, in the file's order.

    Raises
    ------
    InvalidInputError
        No ``query_id`` or ``cluster`` column, an empty id or cluster, an item given two
        clusters, a file without rows.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "clusters.csv"
    >>> _ = path.write_text("query_id,cluster\\nq1,doc-a\\nq2,doc-a\\nq3,doc-b\\n")
    >>> read_clusters(path)
    {'q1': 'doc-a', 'q2': 'doc-a', 'q3': 'doc-b'}
    """
    if isinstance(path, Mapping):
        return {
            item_id(q, f"{argument}: item {q!r}"): item_id(c, f"{argument}[{q!r}]")
            for q, c in path.items()
        }
    if not isinstance(path, str | os.PathLike):
        raise InputTypeError(
            f"{argument}: expected {{query_id: cluster}} or the path of a file with query_id "
            f"and cluster columns, got {type(path).__name__}"
        )
    records = read_records(path, format=format, what="a file of clusters", argument=argument)
    if not records.rows:
        raise InvalidInputError(f"{argument}: {os.fspath(path)} holds no row")
    found: dict[Any, Any] = {}
    for row, where in zip(records.rows, records.where, strict=True):
        for column in ("query_id", "cluster"):
            value = row.get(column)
            if value is None or (isinstance(value, str) and not value.strip()):
                raise InvalidInputError(
                    f"{where}: no {column} (a file of clusters has a query_id and a cluster column)"
                )
        item = item_id(row["query_id"], f"{where}: query_id")
        cluster = item_id(row["cluster"], f"{where}: cluster")
        if found.setdefault(item, cluster) != cluster:
            raise InvalidInputError(
                f"{where}: puts {item!r} in cluster {cluster!r}, an earlier row in "
                f"{found[item]!r}; give every item one cluster"
            )
    return found
