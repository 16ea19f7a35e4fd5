"""The saved form of judge results: its kind and formats, and the checks of each field of a
file being read back (a saved file may have been edited or damaged).

:class:`~ragmeter.judges.JudgeResults` writes and reads the whole form
(:meth:`~ragmeter.judges.JudgeResults.to_dict`); this module reads its parts: one row (a
record of :meth:`~ragmeter.judges.JudgeResults.to_records`, with its usage per judge), the
prices, the judge models, and the metrics a file names (their code is not in the file).

Formats: 1, the report of :meth:`~ragmeter.judges.JudgeResults.to_report_dict` and the rows of
``to_jsonl``; 2, rows of a run with repeats carry ``"repeats"`` and the report a ``"repeats"``
section; 3, the version is ``format_version`` (it was ``schema_version``) and the file holds
all that rebuilds the results: the samples, the prices and judge models, each metric's
agreement level and each row's usage per judge. Files of formats 1 and 2 are read with what
they hold: no samples, no prices (their rows' costs are kept as recorded), a panel row's
usage as the panel's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..exceptions import InvalidInputError
from .accounting import CallStats, Price, normalize_prices
from .score import Score, score_from_dict

__all__ = [
    "AGREEMENT_LEVELS",
    "FORMAT_VERSION",
    "JUDGES_KIND",
    "READABLE_VERSIONS",
    "RowFields",
    "SavedMetric",
    "prices_from_dict",
    "prices_to_dict",
    "row_fields",
    "string_mapping",
]

#: What a saved judge result's ``kind`` field says.
JUDGES_KIND = "ragmeter.judges"
#: The format written (see the module documentation for the history).
FORMAT_VERSION = 3
#: The formats read.
READABLE_VERSIONS = (1, 2, 3)
#: How a metric's values are compared between judges (Krippendorff's levels).
AGREEMENT_LEVELS = ("nominal", "ordinal", "interval", "ratio")

_SCORE_FIELDS = ("value", "status", "reason_code", "message", "reasons", "evidence")
_USAGE_FIELDS = tuple(CallStats().to_dict())
_ROW_FIELDS = (
    "sample_id",
    "metric",
    *_SCORE_FIELDS,
    "judge",
    "judge_scores",
    *_USAGE_FIELDS,
    "cost",
    "repeats",
    "usage",
)


@dataclass(frozen=True)
class SavedMetric:
    """A metric of results read from a file: its name, how a panel's judges are compared on
    it, and the metric-specific figures of its summary as the file holds them (a metric's code
    is not saved, so figures such as pairwise preference's wins are kept as written)."""

    name: str
    agreement_level: str = "interval"
    extra: Mapping[str, Any] | None = None

    def summarize_extra(self, scores: Sequence[Score]) -> Mapping[str, Any]:
        """The summary's metric-specific figures, as the file holds them."""
        return dict(self.extra or {})


@dataclass(frozen=True)
class RowFields:
    """What one saved row holds: the parts of a :class:`~ragmeter.judges.SampleResult` and
    the cost the row recorded."""

    sample_id: str
    metric: str
    score: Score
    judge: str
    judge_scores: dict[str, Score] | None
    usage: dict[str, CallStats]
    repeats: tuple[Score, ...] | None
    cost: float | None


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(f"{where}: expected a string, got {value!r}")
    return value


def row_fields(record: Any, where: str, *, per_judge_usage: bool) -> RowFields:
    """The fields of one saved row (a record of ``to_records``), each checked.

    ``per_judge_usage``: the row holds its ``usage`` per judge (format 3); else (formats 1 and
    2, and JSON lines) its usage is the row's total, the judge's (a panel's, for a panel row).

    Raises
    ------
    InvalidInputError
        a missing or unknown field, a field of the wrong type.
    """
    if not isinstance(record, Mapping):
        raise InvalidInputError(f"{where}: expected a row (a mapping), got {type(record).__name__}")
    for key in record:
        if key not in _ROW_FIELDS or (key == "usage" and not per_judge_usage):
            raise InvalidInputError(f"{where}.{key}: a field ragmeter does not write")
    for key in ("sample_id", "metric", "judge"):
        if key not in record:
            raise InvalidInputError(f"{where}.{key}: missing")
    judge = _text(record["judge"], f"{where}.judge")
    score = score_from_dict({k: record[k] for k in _SCORE_FIELDS if k in record}, where)
    # An absent judge_scores, cost or repeats is None (TOML has no null: it leaves them out).
    judge_scores = record.get("judge_scores")
    if judge_scores is not None:
        if not isinstance(judge_scores, Mapping):
            raise InvalidInputError(f"{where}.judge_scores: expected {{judge: score}} or null")
        judge_scores = {
            _text(name, f"{where}.judge_scores"): score_from_dict(
                item, f"{where}.judge_scores.{name}"
            )
            for name, item in judge_scores.items()
        }
    repeats = record.get("repeats")
    if repeats is not None:
        if not isinstance(repeats, list | tuple):
            raise InvalidInputError(f"{where}.repeats: expected a list of scores")
        repeats = tuple(
            score_from_dict(item, f"{where}.repeats[{i}]") for i, item in enumerate(repeats)
        )
    if per_judge_usage:
        saved = record.get("usage")
        if not isinstance(saved, Mapping):
            raise InvalidInputError(f"{where}.usage: expected {{judge: usage counts}}")
        usage = {
            _text(name, f"{where}.usage"): CallStats.from_dict(stats, f"{where}.usage.{name}")
            for name, stats in saved.items()
        }
    else:
        totals = {k: record[k] for k in _USAGE_FIELDS if k in record}
        usage = {judge: CallStats.from_dict(totals, where)}
    cost = record.get("cost")
    if cost is not None and (
        isinstance(cost, bool)
        or not isinstance(cost, int | float)
        or not math.isfinite(cost)
        or cost < 0
    ):
        raise InvalidInputError(f"{where}.cost: expected a cost >= 0 or null, got {cost!r}")
    return RowFields(
        sample_id=_text(record["sample_id"], f"{where}.sample_id"),
        metric=_text(record["metric"], f"{where}.metric"),
        score=score,
        judge=judge,
        judge_scores=judge_scores,
        usage=usage,
        repeats=repeats,
        cost=None if cost is None else float(cost),
    )


def prices_to_dict(prices: Mapping[str, Price]) -> dict[str, dict[str, float]]:
    """``{name: {"input_per_1k": ..., "output_per_1k": ...}}`` (and ``cached_input_per_1k``
    when a price has one)."""
    return {
        name: {
            "input_per_1k": price.input_per_1k,
            "output_per_1k": price.output_per_1k,
            **(
                {}
                if price.cached_input_per_1k is None
                else {"cached_input_per_1k": price.cached_input_per_1k}
            ),
        }
        for name, price in prices.items()
    }


def prices_from_dict(data: Any, where: str) -> dict[str, Price]:
    """The prices of :func:`prices_to_dict` read from a file, each checked."""
    if not isinstance(data, Mapping):
        raise InvalidInputError(f"{where}: expected {{model: price}}")
    prices: dict[str, Price] = {}
    for name, price in data.items():
        field = f"{where}.{name}"
        keys = {"input_per_1k", "output_per_1k"}
        if not isinstance(price, Mapping) or set(price) not in (
            keys,
            keys | {"cached_input_per_1k"},
        ):
            raise InvalidInputError(
                f"{field}: expected {{input_per_1k, output_per_1k[, cached_input_per_1k]}}"
            )
        numbers = [price["input_per_1k"], price["output_per_1k"]]
        if "cached_input_per_1k" in price:
            numbers.append(price["cached_input_per_1k"])
        if any(isinstance(n, bool) or not isinstance(n, int | float) for n in numbers):
            raise InvalidInputError(f"{field}: a price is a number per 1,000 tokens")
        try:
            prices.update(normalize_prices({_text(name, where): Price(*map(float, numbers))}))
        except InvalidInputError as exc:
            raise InvalidInputError(f"{field}: {exc}") from None
    return prices


def string_mapping(data: Any, where: str) -> dict[str, str]:
    """A ``{str: str}`` mapping of a file (the judge models), checked."""
    if not isinstance(data, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise InvalidInputError(f"{where}: expected {{name: text}}")
    return dict(data)
