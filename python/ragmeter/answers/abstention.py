"""Answers that decline to answer, and reference claims an answer covers (see
:mod:`ragmeter.answers` for the rules they share)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._text import NormalizeArg, check_n_threads, check_unit_interval
from ..exceptions import InputTypeError, InvalidInputError
from ._common import prepare, prepare_answers, summarize
from .declarations import NO_ANSWER_PATTERNS

__all__ = ["AbstentionScores", "abstention_scores", "claim_recall_score", "no_answer_score"]


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


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else math.nan


@dataclass(frozen=True)
class AbstentionScores:
    """How well a system declines the questions that have no answer (SQuAD 2.0 style): the
    counts and the rates :func:`abstention_scores` computes from them. A declined question is
    the positive class.

    Attributes
    ----------
    n_unanswerable
        The questions without an answer.
    n_answerable
        The questions with an answer.
    declined_unanswerable
        Unanswerable questions the system declined (true positives).
    declined_answerable
        Answerable questions the system declined (false positives: false refusals).
    detection_rate
        ``declined_unanswerable / n_unanswerable``: the no-answer detection rate (the
        recall of declining); NaN without unanswerable questions.
    false_refusal_rate
        ``declined_answerable / n_answerable``; NaN without answerable questions.
    precision
        ``declined_unanswerable / (declined_unanswerable + declined_answerable)``: the
        share of the declined questions that had no answer; NaN when nothing was declined.
    f1
        The harmonic mean of ``precision`` and ``detection_rate`` (0 when both are 0); NaN
        when either is undefined.
    """

    n_unanswerable: int
    n_answerable: int
    declined_unanswerable: int
    declined_answerable: int

    @property
    def detection_rate(self) -> float:
        """``declined_unanswerable / n_unanswerable`` (NaN without unanswerable questions)."""
        return _ratio(self.declined_unanswerable, self.n_unanswerable)

    @property
    def false_refusal_rate(self) -> float:
        """``declined_answerable / n_answerable`` (NaN without answerable questions)."""
        return _ratio(self.declined_answerable, self.n_answerable)

    @property
    def precision(self) -> float:
        """The share of the declined questions that had no answer (NaN when none declined)."""
        return _ratio(
            self.declined_unanswerable, self.declined_unanswerable + self.declined_answerable
        )

    @property
    def f1(self) -> float:
        """The harmonic mean of ``precision`` and ``detection_rate`` (0 when both are 0; NaN
        when either is undefined)."""
        precision, recall = self.precision, self.detection_rate
        if math.isnan(precision) or math.isnan(recall):
            return math.nan
        if precision + recall == 0:
            return 0.0
        return 2 * precision * recall / (precision + recall)

    def describe(self) -> str:
        """The rates with the counts they come from, and why an undefined one is undefined.

        Returns
        -------
        str
            One line per rate.
        """
        declined = self.declined_unanswerable + self.declined_answerable

        def shown(value: float, counts: str, why: str) -> str:
            return f"{value:.4f} ({counts})" if not math.isnan(value) else f"undefined ({why})"

        return "\n".join(
            [
                "detection_rate = "
                + shown(
                    self.detection_rate,
                    f"{self.declined_unanswerable} of {self.n_unanswerable} unanswerable",
                    "no unanswerable question",
                ),
                "false_refusal_rate = "
                + shown(
                    self.false_refusal_rate,
                    f"{self.declined_answerable} of {self.n_answerable} answerable",
                    "no answerable question",
                ),
                "precision = "
                + shown(
                    self.precision,
                    f"{self.declined_unanswerable} of {declined} declined",
                    "nothing declined",
                ),
                "f1 = " + shown(self.f1, "of precision and detection_rate", "a rate is undefined"),
            ]
        )


def _check_answerable(answerable: object, n_answers: int) -> list[bool]:
    if isinstance(answerable, str | bytes) or not isinstance(answerable, Sequence | np.ndarray):
        raise InputTypeError(
            f"answerable: expected one bool per answer, got {type(answerable).__name__}"
        )
    flags = []
    for i, flag in enumerate(answerable):
        if not isinstance(flag, bool | np.bool_):
            raise InputTypeError(
                f"answerable[{i}] is {type(flag).__name__} ({flag!r}); expected a bool (True: "
                "the question has an answer)"
            )
        flags.append(bool(flag))
    if len(flags) != n_answers:
        raise InvalidInputError(
            f"answerable: one flag per answer, got {len(flags)} flags and {n_answers} answers"
        )
    return flags


def abstention_scores(
    answers: Any,
    answerable: Any,
    *,
    patterns: Sequence[str] = NO_ANSWER_PATTERNS,
    normalize: NormalizeArg = "squad",
    n_threads: int | None = None,
) -> AbstentionScores:
    """No-answer detection against the questions' answerability: detection rate, false
    refusal rate, precision and F1 of declining (SQuAD 2.0's unanswerable questions, the
    "I don't know" of a RAG system whose context lacks the answer).

    An answer declines as in :func:`no_answer_score` (the same ``patterns`` and
    ``normalize``). With a declined answer the positive class and ``answerable=False`` the
    truth, the detection rate is the recall, the false refusal rate the false positive rate;
    a rate over no question is NaN (:meth:`AbstentionScores.describe` says why). For a
    per-question value in comparisons, use ``no_answer_score(average=None)`` (or
    ``answer_metrics(..., ["no_answer"])``) and select the answerable or unanswerable
    questions.

    Parameters
    ----------
    answers
        The answers, one string each.
    answerable
        One bool per answer: True when the question has an answer.
    patterns
        Regular expressions of a no-answer (default
        :data:`~ragmeter.answers.declarations.NO_ANSWER_PATTERNS`).
    normalize
        ``"squad"`` (default), ``"bergen"``, ``"basic"``, ``None`` or a callable ``str -> str``
        applied to the answers before matching.
    n_threads
        Threads of the Rust core (default ``RAGMETER_NUM_THREADS`` or all cores).

    Returns
    -------
    AbstentionScores
        The counts and the rates.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: as many flags as answers is required, no answer, and the errors of
        :func:`no_answer_score`.
    InputTypeError
        A ``TypeError``: a flag that is not a bool (the message names its position), and the
        type errors of :func:`no_answer_score`.

    Examples
    --------
    >>> scores = abstention_scores(
    ...     ["I don't know.", "Paris", "The context does not mention it.", "1889"],
    ...     [False, True, True, False])
    >>> scores.detection_rate, scores.false_refusal_rate, scores.precision
    (0.5, 0.5, 0.5)
    >>> print(scores.describe())
    detection_rate = 0.5000 (1 of 2 unanswerable)
    false_refusal_rate = 0.5000 (1 of 2 answerable)
    precision = 0.5000 (1 of 2 declined)
    f1 = 0.5000 (of precision and detection_rate)
    """
    declined = no_answer_score(
        answers, patterns=patterns, normalize=normalize, average=None, n_threads=n_threads
    )
    flags = _check_answerable(answerable, len(declined))
    if not flags:
        raise InvalidInputError("answers: no answer to evaluate")
    has_answer = np.asarray(flags, dtype=bool)
    is_declined = declined == 1.0
    return AbstentionScores(
        n_unanswerable=int(np.sum(~has_answer)),
        n_answerable=int(np.sum(has_answer)),
        declined_unanswerable=int(np.sum(is_declined & ~has_answer)),
        declined_answerable=int(np.sum(is_declined & has_answer)),
    )
