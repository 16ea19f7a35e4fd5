"""Nugget scores of one answer from its nuggets' labels: the published formulas, declared once.

Let N be the topic's nuggets, V the vital ones, O = N \\ V the okay ones, and for each nugget
s(n) = 1 (``support``), 0.5 (``partial_support``), 0 (``not_support``); the strict credit
s*(n) = 1 for ``support`` only.

* ``nugget_all`` = Σ_N s / |N| (nuggetizer's ``all_score``);
* ``nugget_all_strict`` = Σ_N s* / |N| (``strict_all_score``);
* ``nugget_vital`` = Σ_V s / |V| (``vital_score``);
* ``nugget_vital_strict`` = Σ_V s* / |V| (``strict_vital_score``);
* ``nugget_weighted`` = (Σ_V s + 0.5 Σ_O s) / (|V| + 0.5 |O|);
* ``nugget_weighted_strict`` = (Σ_V s* + 0.5 Σ_O s*) / (|V| + 0.5 |O|).

Every score is ``undefined`` for a topic without nuggets (``no_nuggets``); the vital scores
also for a topic without a vital nugget (``no_vital_nuggets``: nuggetizer scores it 0.0).

The strict weighted score is ragnarok's ``weighted_score`` ((2 Σ_V s* + Σ_O s*) / (2|V| + |O|),
the same fraction), without its 1e-5 added to the denominator; the weighted score is
open-rag-eval's. The vital and weighted scores need every nugget's importance: a topic with a
nugget not labelled ``vital`` or ``okay`` has them undefined (``importance_not_labelled``).
An answer one of whose labels failed (the judge gave none) has every score ``error``: a failure
is never counted as ``not_support`` (nuggetizer's ``failed`` label is). The two-grade labels
(``support``/``not_support``) are the three-grade ones without ``partial_support``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..exceptions import InvalidInputError
from ..judges.score import Score

__all__ = [
    "CREDIT",
    "LABELS",
    "NUGGET_METRICS",
    "STRICT_CREDIT",
    "TWO_GRADE_LABELS",
    "answer_scores",
    "metric_definitions",
]

#: The three-grade labels of an assignment, best first.
LABELS: tuple[str, ...] = ("support", "partial_support", "not_support")
#: The two-grade labels.
TWO_GRADE_LABELS: tuple[str, ...] = ("support", "not_support")
#: s(n): the credit of each label.
CREDIT: Mapping[str, float] = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
#: s*(n): the strict credit of each label.
STRICT_CREDIT: Mapping[str, float] = {"support": 1.0, "partial_support": 0.0, "not_support": 0.0}
#: Weight of an okay nugget against a vital one in the weighted scores.
OKAY_WEIGHT = 0.5

#: Every score: name -> (formula, which nuggets, strict).
NUGGET_METRICS: dict[str, tuple[str, str, bool]] = {
    "nugget_all": ("sum_N s / |N|", "all", False),
    "nugget_all_strict": ("sum_N s* / |N|", "all", True),
    "nugget_vital": ("sum_V s / |V|", "vital", False),
    "nugget_vital_strict": ("sum_V s* / |V|", "vital", True),
    "nugget_weighted": ("(sum_V s + 0.5 sum_O s) / (|V| + 0.5 |O|)", "weighted", False),
    "nugget_weighted_strict": ("(sum_V s* + 0.5 sum_O s*) / (|V| + 0.5 |O|)", "weighted", True),
}


def metric_definitions(bank: Mapping[str, Any], grades: int) -> dict[str, dict[str, Any]]:
    """Each score's definition as a manifest records it: the formula, the credits, the
    undefined rule, the grades, and the bank (``bank``: its description, with its hash)."""
    return {
        name: {
            "name": name,
            "formula": formula,
            "credit": dict(STRICT_CREDIT if strict else CREDIT),
            "okay_weight": OKAY_WEIGHT,
            "grades": grades,
            "undefined": "no vital nugget" if kind == "vital" else "no nugget",
            "bank": dict(bank),
            "reference": "Pradeep et al., 'Initial Nugget Evaluation Results for the TREC 2024 "
            "RAG Track with the AutoNuggetizer Framework', arXiv:2411.09607 (2024)",
        }
        for name, (formula, kind, strict) in NUGGET_METRICS.items()
    }


def _fraction(
    labels: Sequence[str], importances: Sequence[str | None], kind: str, strict: bool
) -> tuple[float, float] | str:
    credit = STRICT_CREDIT if strict else CREDIT
    if kind == "all":
        return sum(credit[label] for label in labels), float(len(labels))
    if any(i not in ("vital", "okay") for i in importances):
        return "importance_not_labelled"
    if kind == "vital":
        vital = [credit[lb] for lb, i in zip(labels, importances, strict=True) if i == "vital"]
        if not vital:
            return "no_vital_nuggets"
        return sum(vital), float(len(vital))
    numerator = denominator = 0.0
    for label, importance in zip(labels, importances, strict=True):
        weight = 1.0 if importance == "vital" else OKAY_WEIGHT
        numerator += weight * credit[label]
        denominator += weight
    return numerator, denominator


_MESSAGES = {
    "no_nuggets": "the topic has no nugget",
    "no_vital_nuggets": "the topic has no vital nugget",
    "importance_not_labelled": "a nugget of the topic is labelled neither vital nor okay",
}


def answer_scores(
    labels: Sequence[str | None],
    importances: Sequence[str | None],
    *,
    failure: tuple[str, str] | None = None,
) -> dict[str, Score]:
    """Every nugget score of one answer (see the module documentation).

    Parameters
    ----------
    labels
        Each nugget's label (``support``, ``partial_support``, ``not_support``), in the bank's
        order; ``None`` for a nugget the judge gave no label (then ``failure`` says why).
    importances
        Each nugget's importance (``vital``, ``okay`` or None).
    failure
        ``(reason_code, message)`` of the failed judgement, when a label is missing.

    Returns
    -------
    dict
        ``{metric: Score}`` (ok, undefined with its reason, or error).

    Raises
    ------
    InvalidInputError
        Labels and importances of different lengths, an unknown label.

    Examples
    --------
    >>> scores = answer_scores(["support", "partial_support", "not_support"],
    ...                        ["vital", "okay", "okay"])
    >>> scores["nugget_all"].value, scores["nugget_vital"].value, scores["nugget_weighted"].value
    (0.5, 1.0, 0.625)
    >>> answer_scores(["support"], ["okay"])["nugget_vital"].reason_code
    'no_vital_nuggets'
    """
    if len(labels) != len(importances):
        raise InvalidInputError(
            f"labels: {len(labels)} labels for {len(importances)} nuggets; give one label per "
            "nugget"
        )
    unknown = [lb for lb in labels if lb is not None and lb not in CREDIT]
    if unknown:
        raise InvalidInputError(
            f"labels: {unknown[0]!r} is not an assignment label; use one of {', '.join(LABELS)}"
        )
    if any(lb is None for lb in labels):
        code, message = failure or ("label_missing", "a nugget has no label")
        return {name: Score.error(code, message) for name in NUGGET_METRICS}
    given = [str(lb) for lb in labels]
    scores: dict[str, Score] = {}
    for name, (_, kind, strict) in NUGGET_METRICS.items():
        found = _fraction(given, importances, kind, strict) if given else "no_nuggets"
        if isinstance(found, str):
            scores[name] = Score.undefined(found, _MESSAGES[found])
        else:
            numerator, denominator = found
            scores[name] = Score.ok(numerator / denominator)
    return scores
