"""ranx's ``get_file_kind`` of its qrels and run modules: the file kind from the suffix."""

from __future__ import annotations

import os

from ...exceptions import InvalidInputError

__all__ = ["file_kind"]


def file_kind(path: str, kind: str | None, kinds: tuple[str, ...]) -> str:
    """``kind``, or the one ``path``'s suffix names (``.txt`` is ``trec``, ``.parq``
    ``parquet``), which must be one of ``kinds`` (ranx asserts it; here an
    :class:`~ragmeter.InvalidInputError` naming the kinds)."""
    if kind is None:
        kind = os.path.splitext(path)[1][1:]
        kind = {"txt": "trec", "parq": "parquet"}.get(kind, kind)
    if kind not in kinds:
        raise InvalidInputError(
            f"kind: {kind!r} (from {path!r}) is not one of {', '.join(map(repr, kinds))}; "
            "name the file with one of those suffixes or pass kind="
        )
    return kind
