"""ranx's inputs beyond dicts: NumPy scalars as ids and values, and ranx's array form (one
2-D array per query, rows ``[doc_id, value]``), for the ranx drop-in and its ``metrics``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...exceptions import InputTypeError, InvalidInputError

__all__ = ["as_mapping", "doc_id", "plain"]


def plain(value: Any) -> Any:
    """A NumPy scalar as the Python value ragmeter's readers take (ids as str or int)."""
    return value.item() if isinstance(value, np.generic) else value


def doc_id(value: Any) -> Any:
    """A doc id of ranx's arrays (a float column): the integer it holds, else its text."""
    value = plain(value)
    if isinstance(value, float):
        return int(value) if value.is_integer() else repr(value)
    return value


def as_mapping(data: Any, argument: str) -> dict[Any, dict[Any, Any]]:
    """Judgments or rankings as ``{query_id: {doc_id: value}}``: a Qrels/Run, a dict, or
    ranx's array form (a sequence of 2-D arrays, one per query, rows ``[doc_id, value]``; the
    query ids are the positions; a ranking's rows are in rank order, as ranx reads them)."""
    if callable(getattr(data, "to_dict", None)) and hasattr(data, "get_query_ids"):
        return data.to_dict()  # type: ignore[no-any-return]  # a Qrels or Run
    if isinstance(data, Mapping):
        return {q: dict(d) for q, d in data.items()}
    if isinstance(data, np.ndarray | list | tuple) or hasattr(data, "_numba_type_"):
        out: dict[Any, dict[Any, Any]] = {}
        for position, rows in enumerate(data):
            array = np.asarray(rows)
            if array.size and (array.ndim != 2 or array.shape[1] != 2):
                raise InvalidInputError(
                    f"{argument}: query {position}: ranx's array form holds one 2-D array per "
                    f"query with rows [doc_id, value], got an array of shape {array.shape}"
                )
            rows = array.reshape(-1, 2)
            if argument == "run":
                # ranx reads a ranking array in its row order (it expects rows sorted by score,
                # ties in the order given): the row order is the ranking, kept by scores that
                # decrease with the row.
                out[position] = {
                    doc_id(doc): float(len(rows) - i) for i, (doc, _) in enumerate(rows)
                }
            else:
                out[position] = {doc_id(doc): plain(value) for doc, value in rows}
        return out
    raise InputTypeError(
        f"{argument}: expected a {'Qrels' if argument == 'qrels' else 'Run'}, a dict {{query_id: "
        f"{{doc_id: value}}}} or ranx's arrays, got {type(data).__name__}"
    )
