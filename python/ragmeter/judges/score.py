"""A metric's outcome on one sample: a value *and* a status.

``ok`` carries a finite value; ``undefined`` means the metric has no value for this sample (with
a reason code such as ``no_claims``); ``error`` means the judge failed (with a reason code such as
``judge_output_invalid``). A failure is a status, never a fabricated number.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..exceptions import InvalidInputError

__all__ = ["STATUSES", "Score", "Status", "jsonable", "score_from_dict"]

Status = Literal["ok", "undefined", "error"]
STATUSES: tuple[str, ...] = ("ok", "undefined", "error")


@dataclass(frozen=True)
class Score:
    """One metric's outcome on one sample: a value and a status.

    Build one with :meth:`ok`, :meth:`undefined` or :meth:`error`.

    Attributes
    ----------
    value
        A finite float when ``status == "ok"``, else ``None``.
    status
        ``"ok"``, ``"undefined"`` (the metric has no value for this sample) or
        ``"error"`` (the judge failed).
    reason_code
        A stable machine-readable code for undefined and error scores
        (``no_claims``, ``missing_contexts``, ``judge_output_invalid`` ...) and for
        noteworthy ok scores (``noncommittal``, ``no_contexts``).
    message
        The reason in words.
    reasons
        The judge's own explanations.
    evidence
        What the value was computed from (claims, verdicts, generated questions,
        per-judge scores).

    Raises
    ------
    InvalidInputError
        an ok score without a finite value, or a value on another status.

    Examples
    --------
    >>> Score.ok(0.5, reasons=["one of two claims is supported"]).value
    0.5
    >>> Score.undefined("no_claims", "the answer makes no claim").status
    'undefined'
    >>> Score.ok(float("nan"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ragmeter.exceptions.InvalidInputError: an ok score needs a finite value, got nan; ...
    """

    value: float | None
    status: Status = "ok"
    reason_code: str | None = None
    message: str | None = None
    reasons: tuple[str, ...] = ()
    evidence: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise InvalidInputError(f"status must be one of {STATUSES}, got {self.status!r}")
        if self.status == "ok":
            if self.value is None or not math.isfinite(float(self.value)):
                raise InvalidInputError(
                    f"an ok score needs a finite value, got {self.value!r}; use "
                    "Score.undefined(reason_code) when the metric has no value"
                )
            object.__setattr__(self, "value", float(self.value))
        elif self.value is not None:
            raise InvalidInputError(f"a {self.status} score has no value, got {self.value!r}")

    @classmethod
    def ok(
        cls,
        value: float,
        *,
        reasons: Sequence[str] = (),
        evidence: Mapping[str, Any] | None = None,
        reason_code: str | None = None,
        message: str | None = None,
    ) -> Score:
        """A score with a finite ``value``, the judge's ``reasons`` and the ``evidence``."""
        return cls(float(value), "ok", reason_code, message, tuple(reasons), dict(evidence or {}))

    @classmethod
    def undefined(
        cls, reason_code: str, message: str = "", *, evidence: Mapping[str, Any] | None = None
    ) -> Score:
        """A score without a value because the metric has none for this sample (why: the code)."""
        return cls(None, "undefined", reason_code, message or None, (), dict(evidence or {}))

    @classmethod
    def error(
        cls, reason_code: str, message: str = "", *, evidence: Mapping[str, Any] | None = None
    ) -> Score:
        """A score without a value because judging failed (what failed: the code and message)."""
        return cls(None, "error", reason_code, message or None, (), dict(evidence or {}))

    def to_dict(self) -> dict[str, Any]:
        """The score as a JSON-ready dict (non-finite numbers in the evidence become None)."""
        return {
            "value": self.value,
            "status": self.status,
            "reason_code": self.reason_code,
            "message": self.message,
            "reasons": list(self.reasons),
            "evidence": jsonable(self.evidence),
        }


def score_from_dict(data: Any, where: str) -> Score:
    """A :class:`Score` from :meth:`Score.to_dict` output read from a file, every field checked
    (``where`` names it in errors: a saved file may have been edited).

    Raises
    ------
    InvalidInputError
        a missing or unknown field, a field of the wrong type, a value on a
        status that has none, an ok score without a finite value.
    """
    if not isinstance(data, Mapping):
        raise InvalidInputError(f"{where}: expected a score (a mapping), got {type(data).__name__}")
    fields = ("value", "status", "reason_code", "message", "reasons", "evidence")
    for key in data:
        if key not in fields:
            raise InvalidInputError(f"{where}.{key}: a field ragmeter does not write")
    for key in ("status", "reasons", "evidence"):
        if key not in data:
            raise InvalidInputError(f"{where}.{key}: missing")
    # An absent value, reason code or message is None (TOML has no null: it leaves them out).
    data = {key: data.get(key) for key in fields}
    value = data["value"]
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise InvalidInputError(f"{where}.value: expected a number or null, got {value!r}")
    for key in ("reason_code", "message"):
        if data[key] is not None and not isinstance(data[key], str):
            raise InvalidInputError(f"{where}.{key}: expected a string or null, got {data[key]!r}")
    reasons = data["reasons"]
    if not isinstance(reasons, list | tuple) or not all(isinstance(r, str) for r in reasons):
        raise InvalidInputError(f"{where}.reasons: expected a list of strings")
    if not isinstance(data["evidence"], Mapping):
        raise InvalidInputError(f"{where}.evidence: expected a mapping")
    try:
        return Score(
            value,
            data["status"],
            data["reason_code"],
            data["message"],
            tuple(reasons),
            dict(data["evidence"]),
        )
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None


def jsonable(value: Any) -> Any:
    """``value`` made JSON-ready: mappings and sequences recursively, NaN as None, else str."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, Score):
        return value.to_dict()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
