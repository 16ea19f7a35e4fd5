"""What every reader of another harness's result file shares: the long rows it builds (item,
metric, value, repeat, cluster, system, status) and the rule that turns a harness's score into
a number.

Each harness's reader (``_inspect.py``, ``_deepeval.py``, ``_lm_eval.py``, ``_promptfoo.py``,
``_mlflow.py``, ``_trulens.py``, ``_openai_evals.py``) maps its file's fields onto
:class:`HarnessRows`, whose :meth:`HarnessRows.records` are the long form of
:mod:`ragmeter.io._per_item`, with a :class:`~ragmeter.Manifest` naming the harness (its name
and version as the file records them, as ``producer``) and the scorers it recorded (as the
metrics' definitions: two files scored by differently configured scorers are refused by
:func:`~ragmeter.check_comparable`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..exceptions import InvalidInputError
from ..manifest import Manifest
from ._records import Records

__all__ = ["HarnessRows", "score_number"]

#: Inspect AI's letter grades (``inspect_ai.scorer``: CORRECT "C", INCORRECT "I", PARTIAL "P",
#: NOANSWER "N"), as its ``value_to_float()`` reads them, and the yes/no/true/false words it
#: also reads.
_WORDS = {
    "c": 1.0,
    "i": 0.0,
    "p": 0.5,
    "n": 0.0,
    "yes": 1.0,
    "no": 0.0,
    "true": 1.0,
    "false": 0.0,
    "correct": 1.0,
    "incorrect": 0.0,
}


def score_number(value: Any, where: str, what: str) -> float:
    """A harness's score as a number: a bool is 1 or 0, a number itself (NaN: undefined), a
    numeric string its number, Inspect's grades C/I/P/N 1, 0, 0.5 and 0 (as Inspect's
    ``value_to_float`` reads them) and yes/no/true/false 1 or 0; None is undefined (NaN).

    >>> score_number("C", "f", "s"), score_number(True, "f", "s"), score_number("0.25", "f", "s")
    (1.0, 1.0, 0.25)
    """
    if value is None:
        return math.nan
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        word = value.strip().lower()
        if word in _WORDS:
            return _WORDS[word]
        try:
            number = float(word)
        except ValueError:
            raise InvalidInputError(
                f"{where}: {what} is {value!r}, which is not a score ragmeter reads as a "
                "number (a number, a bool, C/I/P/N, yes/no)"
            ) from None
    else:
        raise InvalidInputError(
            f"{where}: {what} is {type(value).__name__} {str(value)[:60]!r}, not a number"
        )
    if math.isinf(number):
        raise InvalidInputError(f"{where}: {what} is infinite")
    return number


class HarnessRows:
    """The long rows of one harness's result file, and what made them.

    Parameters
    ----------
    file
        The file, for messages.
    harness
        The harness's name (``"inspect_ai"``, ``"deepeval"``, ...).
    version
        Its version, when the file records it.
    """

    def __init__(self, file: str, harness: str, version: str | None = None) -> None:
        self.file = file
        self.producer = harness if not version else f"{harness} {version}"
        self.rows: list[dict[str, Any]] = []
        self.where: list[str] = []
        self.definitions: dict[str, dict[str, Any]] = {}

    def define(self, metric: str, definition: Mapping[str, Any]) -> None:
        """Record what ``metric`` is (the scorer as the harness recorded it)."""
        self.definitions.setdefault(metric, dict(definition))

    def add(
        self,
        item: Any,
        metric: str,
        value: float,
        where: str,
        *,
        system: str | None = None,
        repeat: int | None = None,
        cluster: Any = None,
        failed: bool = False,
    ) -> None:
        """One value (``failed``: the harness recorded an error instead of a score)."""
        if isinstance(item, bool) or not isinstance(item, str | int) or item == "":
            raise InvalidInputError(f"{where}: the item id is {item!r}, not a str or an int")
        row: dict[str, Any] = {"query_id": item, "metric": metric, "value": value}
        if system is not None:
            row["system"] = system
        if repeat is not None:
            row["repeat"] = repeat
        if cluster is not None:
            row["cluster"] = cluster
        row["status"] = "failed" if failed else "ok"
        self.rows.append(row)
        self.where.append(where)

    def records(self) -> Records:
        """The rows as records in the long form, with their manifest."""
        if not self.rows:
            raise InvalidInputError(f"{self.file}: holds no score ragmeter can read")
        if any("repeat" in row for row in self.rows):
            # Every row of a file with repeats is numbered (an item's only value is repeat 0).
            for row in self.rows:
                row.setdefault("repeat", 0)
        if any("cluster" in row for row in self.rows):
            missing = [
                w for row, w in zip(self.rows, self.where, strict=True) if "cluster" not in row
            ]
            if missing:
                raise InvalidInputError(
                    f"{missing[0]}: has no cluster where other rows have one; give every item "
                    "its cluster"
                )
        manifest = Manifest(self.producer, None, self.definitions, {}, None, ("settings", "judge"))
        return Records(self.rows, self.where, False, False, manifest)
