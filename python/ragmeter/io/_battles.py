"""Files of pairwise preferences (arena-style battles): :func:`read_battles`, what ``ragmeter
rank --battles`` and ``ragmeter report --battles`` read.

A file of battles is any file of records :func:`~ragmeter.io.read_records` reads (JSON lines,
a JSON list of objects, CSV, TSV, Parquet) with FastChat's fields ``model_a``, ``model_b`` and
``winner`` (``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)``), as FastChat's
``clean_battle_data.py`` writes them and Chatbot Arena publishes them; other fields (judge,
turn, language, ...) are ignored. Refused, naming the file and line: a missing field, another
winner, a system against itself, a file without rows.
"""

from __future__ import annotations

import os
from typing import Any

from ..exceptions import InvalidInputError
from ._formats import read_records

__all__ = ["WINNERS", "read_battles"]

#: The winners a battle may record (FastChat's values).
WINNERS = ("model_a", "model_b", "tie", "tie (bothbad)")


def read_battles(
    path: str | os.PathLike[str], *, format: str | None = None, argument: str = "battles"
) -> list[tuple[str, str, str]]:
    """The battles of a file: ``(model_a, model_b, winner)`` in the file's order (see the
    module documentation), ready for :func:`ragmeter.stats.bradley_terry`.

    Parameters
    ----------
    path
        The file.
    format
        Its format (default: from its suffix).
    argument
        The argument named in errors.

    Returns
    -------
    list of tuple
        One ``(model_a, model_b, winner)`` per battle.

    Raises
    ------
    InvalidInputError
        A missing field, an unknown winner, a system against itself, no battle.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "battles.jsonl"
    >>> _ = path.write_text('{"model_a": "x", "model_b": "y", "winner": "tie"}\\n')
    >>> read_battles(path)
    [('x', 'y', 'tie')]
    """
    records = read_records(path, format=format, what="a file of battles", argument=argument)
    battles: list[tuple[str, str, str]] = []
    for row, where in zip(records.rows, records.where, strict=True):
        fields: list[Any] = []
        for name in ("model_a", "model_b", "winner"):
            value = row.get(name)
            if not isinstance(value, str) or not value.strip():
                raise InvalidInputError(
                    f"{where}: no {name} (a battle has model_a, model_b and winner, as "
                    f"FastChat writes them), got {value!r:.60}"
                )
            fields.append(value)
        a, b, winner = fields
        if winner not in WINNERS:
            raise InvalidInputError(
                f"{where}: winner is {winner!r:.60}; one of {', '.join(WINNERS)}"
            )
        if a == b:
            raise InvalidInputError(f"{where}: {a!r:.60} against itself")
        battles.append((a, b, winner))
    if not battles:
        raise InvalidInputError(f"{argument}: {os.fspath(path)} holds no battle")
    return battles
