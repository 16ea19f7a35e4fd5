"""Answers that decline to answer, and reference claims an answer covers (see
:mod:`ragmeter.answers` for the rules they share)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._text import NormalizeArg, check_n_threads, check_unit_interval
from ..exceptions import InputTypeError, InvalidInputError
from ._common import prepare, prepare_answers, summarize
from .declarations import NO_ANSWER_PATTERNS

__all__ = ["claim_recall_score", "no_answer_score"]


def _check_patterns(patterns: object) -> list[str]:
    if isinstance(patterns, str) or not isinstance(patterns, Sequence):
        raise InputTypeError(
            f"patterns: expected a list of regular expressions, got {type(patterns).__name__}"
        )
    checked = list(patterns)
    for i, pattern in enumerate(checked):
        if not isinstance(pattern, str):
            raise InputTypeError(f"patterns[{i}] is {type(pattern).__name__}; expected a str")
    if not checked:
        raise InvalidInputError("patterns: give at least one pattern")
    return checked


@overload
def no_answer_score(
    answers: Any,
    *,
    patterns: Sequence[str] = ...,
    normalize: NormalizeArg = ...,
    average: Literal["mean"] = ...,
    n_threads: int | None = ...,
) -> float: ...
@overload
def no_answer_score(
    answers: Any,
    *,
    patterns: Sequence[str] = ...,
    normalize: NormalizeArg = ...,
    average: None,
    n_threads: int | None = ...,
) -> NDArray[np.float64]: ...
def no_answer_score(
    answers: Any,
    *,
    patterns: Sequence[str] = NO_ANSWER_PATTERNS,
    normalize: NormalizeArg = "squad",
    average: Literal["mean"] | None = "mean",
    n_threads: int | None = None,
) -> float | NDArray[np.float64]:
    r"""No-answer detection: 1.0 for an answer that declines to answer, else 0.0.

    An answer declines when one of ``patterns`` (regular expressions, searched
    case-insensitively) matches it after normalisation. The default patterns,
    :data:`~ragmeter.answers.declarations.NO_ANSWER_PATTERNS`, are written for SQuAD's
    normalisation (lower case, no punctuation or articles): an answer with nothing left
    (empty, or only punctuation and articles); a whole answer that is a no-answer token
    (``no answer``, ``noanswer``, ``unanswerable``, ``unknown``, ``n/a``); "I don't know";
    "cannot answer / determine"; "not enough / insufficient / no relevant information"; "the
    context / passages / documents do not contain / mention ..."; "not mentioned in the
    context". They are English only and meant as a floor: pass your own for other phrasings.

    The mean is the no-answer rate. Over the questions that have no answer (SQuAD 2.0 style)
    it is the rate at which the system detects that; over answerable questions, its false
    refusal rate: select the samples before averaging, or compare the per-answer values.

    Patterns use the Rust ``regex`` syntax (see
    :func:`~ragmeter.answers.substring_match_score`): linear-time matching, no
    backreferences or look-around.

    Parameters
    ----------
    answers
        The answers, one string each.
    patterns
        Regular expressions of a no-answer (default
        :data:`~ragmeter.answers.declarations.NO_ANSWER_PATTERNS`).
    normalize
        ``"squad"`` (default), ``"bergen"``, ``"basic"``, ``None`` or a callable ``str -> str``
        applied to the answers before matching.
    average
        ``"mean"`` (default): the no-answer rate; ``None``: one value per answer.
    n_threads
        Threads of the Rust core (default ``RAGMETER_NUM_THREADS`` or all cores).

    Returns
    -------
    float or numpy.ndarray
        The rate in [0, 1] (a :class:`~ragmeter.MeanScore`), or with ``average=None`` a float64
        array of one value per answer.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: no answers with ``average="mean"``, no pattern, a pattern that is
        not valid (the message names it), an unknown normaliser or ``average``, a bad
        ``n_threads``.
    InputTypeError
        A ``TypeError``: an answer that is not a string, a single string given as the list of
        answers, ``patterns`` not a list of strings.

    Examples
    --------
    >>> no_answer_score(["I don't know.", "Paris", "The context does not mention it.", ""],
    ...                 average=None)
    array([1., 0., 1., 1.])
    """
    checked = _check_patterns(patterns)
    threads = check_n_threads(n_threads)
    answer_list, name = prepare_answers(answers, normalize, average)
    scores = _core.no_answer_scores(answer_list, checked, name, threads)
    return summarize(scores, average, "no_answer")


@overload
def claim_recall_score(
    claims: Any,
    answers: Any,
    *,
    threshold: float = ...,
    normalize: NormalizeArg = ...,
    average: Literal["mean"] = ...,
    n_threads: int | None = ...,
) -> float: ...
@overload
def claim_recall_score(
    claims: Any,
    answers: Any,
    *,
    threshold: float = ...,
    normalize: NormalizeArg = ...,
    average: None,
    n_threads: int | None = ...,
) -> NDArray[np.float64]: ...
def claim_recall_score(
    claims: Any,
    answers: Any,
    *,
    threshold: float = 1.0,
    normalize: NormalizeArg = "squad",
    average: Literal["mean"] | None = "mean",
    n_threads: int | None = None,
) -> float | NDArray[np.float64]:
    """Claim recall: the share of an answer's reference claims that the answer covers.

    A deterministic rule, with no language model: the claim and the answer are normalised and
    split into words, and a claim is covered when at least ``threshold`` of its words (as a
    multiset) are words of the answer, ``|claim ∩ answer| / |claim| >= threshold`` (the
    recall of SQuAD's token F1); with the default ``threshold=1.0`` every word of the claim
    must be in the answer, in any order. A claim with no word left after normalisation is
    covered. An answer's value is ``covered claims / claims``, undefined (NaN) when it has no
    claim; the mean is over the answers that have claims, and says how many had none.

    Whether an answer *entails* a claim in other words needs a judge:
    :mod:`ragmeter.judges` (``context_recall``, ``answer_correctness``).

    Parameters
    ----------
    claims
        One entry per answer: a list of reference claims (a single string is one claim; an
        empty list makes the value undefined).
    answers
        The answers, one string each, as many as ``claims``.
    threshold
        The share of a claim's words the answer must hold, in (0, 1]; default 1.0.
    normalize
        ``"squad"`` (default), ``"bergen"``, ``"basic"``, ``None`` or a callable ``str -> str``
        applied to both sides.
    average
        ``"mean"`` (default): the mean over the answers that have claims; ``None``: one value
        per answer (NaN without claims).
    n_threads
        Threads of the Rust core (default ``RAGMETER_NUM_THREADS`` or all cores).

    Returns
    -------
    float or numpy.ndarray
        The mean in [0, 1] (a :class:`~ragmeter.MeanScore` with ``n_undefined`` the answers
        without claims), or with ``average=None`` a float64 array of one value per answer.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: claims and answers of different lengths, no answers (or no answer
        with claims) with ``average="mean"``, a ``threshold`` outside (0, 1], an unknown
        normaliser or ``average``, a bad ``n_threads``.
    InputTypeError
        A ``TypeError``: an answer or claim that is not a string, a single string given as the
        list of answers or claims.

    Examples
    --------
    >>> claims = [["Paris is the capital of France.", "The Eiffel Tower is in Paris."], []]
    >>> answers = ["The capital of France is Paris.", "I don't know."]
    >>> claim_recall_score(claims, answers, average=None)
    array([0.5, nan])
    >>> claim_recall_score(claims, answers).describe()
    'claim_recall = 0.5000 over 2 queries (1 undefined)'
    """
    value = check_unit_interval(threshold, "threshold", allow_zero=False)
    threads = check_n_threads(n_threads)
    claim_list, answer_list, name = prepare(
        claims,
        answers,
        normalize,
        average,
        argument="claims",
        what="claims (each a list of str)",
    )
    scores = _core.claim_recall(claim_list, answer_list, name, value, threads)
    return summarize(scores, average, "claim_recall")
