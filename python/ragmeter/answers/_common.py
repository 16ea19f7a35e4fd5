"""The input rules and the averaging every answer metric shares (see :mod:`ragmeter.answers`).

The per-item checks (types, valid Unicode, empty lists of references) happen in the Rust
bindings while they read the items; here only what needs no loop over the items, and the
``normalize`` callables, which run in Python.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._text import as_item_list, check_n_threads, normalize_callable, resolve_normalize
from ..exceptions import InvalidInputError
from ..ranking import MeanScore

__all__ = [
    "ANSWERS",
    "REFERENCES",
    "check_average",
    "pair_scores",
    "pattern_scores",
    "prepare",
    "prepare_answers",
    "summarize",
]

REFERENCES = "references (each a str or a list of acceptable str)"
ANSWERS = "answers (one str each)"


def check_average(average: object) -> None:
    """``average`` is ``"mean"`` or ``None``."""
    if average not in ("mean", None):
        raise InvalidInputError(
            f"average: must be 'mean' or None (one score each), got {average!r}"
        )


def prepare_answers(answers: object, normalize: object, average: object) -> tuple[list[Any], str]:
    """The answers as a list (a ``normalize`` callable applied) and the name of the core's
    normalisation (``"none"`` after a callable)."""
    check_average(average)
    answer_list = as_item_list(answers, "answers", ANSWERS)
    if average == "mean" and not answer_list:
        raise InvalidInputError(
            "answers are empty: a mean over 0 answers is undefined; pass average=None to get "
            "an empty array"
        )
    name, function = resolve_normalize(normalize)
    if function is not None:
        answer_list = [
            normalize_callable(function, answer, f"answers[{i}]")
            for i, answer in enumerate(answer_list)
        ]
    return answer_list, name


def prepare(
    references: object,
    answers: object,
    normalize: object,
    average: object,
    *,
    normalize_references: bool = True,
    argument: str = "references",
    what: str = REFERENCES,
) -> tuple[list[Any], list[Any], str]:
    """The references (or claims) and answers as lists of the same length, with a ``normalize``
    callable applied (to the references too unless ``normalize_references`` is false: gold
    patterns are matched as written), and the name of the core's normalisation."""
    check_average(average)
    reference_list = as_item_list(references, argument, what)
    answer_list = as_item_list(answers, "answers", ANSWERS)
    if len(reference_list) != len(answer_list):
        raise InvalidInputError(
            f"{argument} and answers must have the same length (one {argument} entry per "
            f"answer), got {len(reference_list)} {argument} and {len(answer_list)} answers"
        )
    if average == "mean" and not answer_list:
        raise InvalidInputError(
            f"{argument} and answers are empty: a mean over 0 answers is undefined; pass "
            "average=None to get an empty array"
        )
    name, function = resolve_normalize(normalize)
    if function is not None:
        if normalize_references:
            reference_list = [
                _normalize_entry(function, entry, argument, i)
                for i, entry in enumerate(reference_list)
            ]
        answer_list = [
            normalize_callable(function, answer, f"answers[{i}]")
            for i, answer in enumerate(answer_list)
        ]
    return reference_list, answer_list, name


def _normalize_entry(
    function: Callable[[str], Any], entry: object, argument: str, i: int
) -> object:
    if isinstance(entry, (list, tuple)):
        return [
            normalize_callable(function, item, f"{argument}[{i}][{j}]")
            for j, item in enumerate(entry)
        ]
    return normalize_callable(function, entry, f"{argument}[{i}]")


def summarize(
    scores: NDArray[np.float64], average: object, metric: str
) -> float | NDArray[np.float64]:
    """``scores`` itself (``average=None``) or their mean as a :class:`~ragmeter.MeanScore`
    over the defined (non-NaN) scores, which says how many were undefined."""
    if average is None:
        return scores
    undefined = int(np.isnan(scores).sum())
    if undefined == len(scores):
        raise InvalidInputError(
            f"{metric} is undefined for every one of the {len(scores)} answers, so its mean is "
            "undefined; pass average=None to get the per-answer values (NaN)"
        )
    value = float(np.nanmean(scores)) if undefined else float(scores.mean())
    return MeanScore(value, n_queries=len(scores), n_undefined=undefined, metric=metric)


def pair_scores(
    metric: str,
    references: object,
    answers: object,
    normalize: object,
    average: object,
    n_threads: object,
    threshold: float = 0.5,
) -> float | NDArray[np.float64]:
    """One of the core's pair metrics (``exact_match``, ``token_f1``, ``anls``,
    ``edit_similarity``, ``substring_match``), best reference counting."""
    threads = check_n_threads(n_threads)
    reference_list, answer_list, name = prepare(references, answers, normalize, average)
    scores = _core.answer_scores(reference_list, answer_list, metric, name, threshold, threads)
    return summarize(scores, average, metric)


def pattern_scores(
    mode: str,
    metric: str,
    references: object,
    answers: object,
    normalize: object,
    average: object,
    n_threads: object,
) -> float | NDArray[np.float64]:
    """Gold answers as regular expressions (``mode`` ``"search"`` or ``"fullmatch"``): the
    answers normalised, the patterns as written."""
    threads = check_n_threads(n_threads)
    reference_list, answer_list, name = prepare(
        references, answers, normalize, average, normalize_references=False
    )
    scores = _core.pattern_match_scores(reference_list, answer_list, mode, name, threads)
    return summarize(scores, average, metric)
