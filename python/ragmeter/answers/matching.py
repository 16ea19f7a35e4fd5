"""Answer metrics that compare normalised texts: exact match, SQuAD token F1 and substring
match (see :mod:`ragmeter.answers` for the rules they share)."""

from __future__ import annotations

from typing import Any, Literal, overload

import numpy as np
from numpy.typing import NDArray

from .._text import NormalizeArg
from ._common import pair_scores, pattern_scores

__all__ = ["exact_match_score", "substring_match_score", "token_f1_score"]


@overload
def exact_match_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = ...,
    regex: bool = ...,
    average: Literal["mean"] = ...,
    n_threads: int | None = ...,
) -> float: ...
@overload
def exact_match_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = ...,
    regex: bool = ...,
    average: None,
    n_threads: int | None = ...,
) -> NDArray[np.float64]: ...
def exact_match_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = "squad",
    regex: bool = False,
    average: Literal["mean"] | None = "mean",
    n_threads: int | None = None,
) -> float | NDArray[np.float64]:
    """Exact match: 1.0 if the normalised answer equals a normalised reference, else 0.0.

    ``EM_i = max_r [norm(answer_i) == norm(r)]``, averaged over answers. With the default
    ``normalize="squad"`` this is the official SQuAD v1.1 exact-match score (as a fraction, not a
    percentage): see :func:`normalize_squad`. It is also FlashRAG's ``ExactMatch`` ("em") and,
    with ``normalize="bergen"``, BERGEN's ``EM``.

    With ``regex=True`` each reference is a regular expression (CuratedTREC's gold answers)
    that must match the whole normalised answer, case-insensitively, as FlashRAG's
    ``ExactMatch`` on CuratedTREC (``re.fullmatch(pattern, norm(answer), re.IGNORECASE)``); the
    pattern is not normalised. Patterns are read by the Rust ``regex`` crate, which matches in
    linear time (no pattern can make a call hang) and has no backreferences or look-around:
    see :func:`substring_match_score` for the dialect.

    Reference: Rajpurkar et al. (2016), "SQuAD: 100,000+ Questions for Machine Comprehension
    of Text", EMNLP.

    Parameters
    ----------
    references
        One entry per answer: a string, or a list of acceptable strings (the best one counts).
    answers
        The answers, one string each, as many as ``references``.
    normalize
        ``"squad"``, ``"bergen"``, ``"basic"``, ``None`` (compare the texts as given) or a
        callable ``str -> str`` applied to both sides (to the answers only with ``regex``);
        default ``"squad"``.
    regex
        Read each reference as a regular expression the whole normalised answer must match.
    average
        ``"mean"`` (default): the mean over answers; ``None``: one score per answer.
    n_threads
        Threads of the Rust core (default ``RAGMETER_NUM_THREADS`` or all cores).

    Returns
    -------
    float or numpy.ndarray
        The mean in [0, 1] (a :class:`~ragmeter.MeanScore`, a ``float`` that carries
        ``n_queries``), or with ``average=None`` a float64 array of one score per answer.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: references and answers of different lengths, an empty list of
        acceptable references, no answers with ``average="mean"``, an unknown normaliser or
        ``average``, a bad ``n_threads``, a pattern that is not valid (with ``regex``; the
        message names its position).
    InputTypeError
        A ``TypeError``: an answer or reference that is not a string, a single string (or
        None, a mapping, a set) given as the list of answers or references, a ``normalize``
        callable that does not return a string.

    Examples
    --------
    >>> exact_match_score(["The Eiffel Tower", ["Paris", "City of Paris"]],
    ...                   ["eiffel tower.", "Paris, France"])
    0.5
    """
    if regex:
        return pattern_scores(
            "fullmatch", "exact_match", references, answers, normalize, average, n_threads
        )
    return pair_scores("exact_match", references, answers, normalize, average, n_threads)


@overload
def token_f1_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = ...,
    average: Literal["mean"] = ...,
    n_threads: int | None = ...,
) -> float: ...
@overload
def token_f1_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = ...,
    average: None,
    n_threads: int | None = ...,
) -> NDArray[np.float64]: ...
def token_f1_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = "squad",
    average: Literal["mean"] | None = "mean",
    n_threads: int | None = None,
) -> float | NDArray[np.float64]:
    """SQuAD token F1: the harmonic mean of token precision and recall, best reference counting.

    Tokens are the space-separated words of the normalised texts, compared as multisets: with
    ``c`` the size of the multiset intersection, ``P = c / |answer tokens|``,
    ``R = c / |reference tokens|`` and ``F1 = 2PR / (P + R)`` (0 when ``c == 0``). Two empty
    token lists score 1.0 and one empty list 0.0 (the rule of the SQuAD v2.0 script; v1.1
    scored an empty pair 0). With the default ``normalize="squad"`` this is the official SQuAD
    v1.1 F1 (as a fraction, not a percentage).

    Reference: Rajpurkar et al. (2016), "SQuAD: 100,000+ Questions for Machine Comprehension
    of Text", EMNLP.

    Parameters
    ----------
    references
        One entry per answer: a string, or a list of acceptable strings (the best one counts).
    answers
        The answers, one string each, as many as ``references``.
    normalize
        ``"squad"``, ``"bergen"``, ``"basic"``, ``None`` (compare the texts as given) or a
        callable ``str -> str`` applied to both sides; default ``"squad"``.
    average
        ``"mean"`` (default): the mean over answers; ``None``: one score per answer.
    n_threads
        Threads of the Rust core (default ``RAGMETER_NUM_THREADS`` or all cores).

    Returns
    -------
    float or numpy.ndarray
        The mean in [0, 1] (a :class:`~ragmeter.MeanScore`, a ``float`` that carries
        ``n_queries``), or with ``average=None`` a float64 array of one score per answer.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: references and answers of different lengths, an empty list of
        acceptable references, no answers with ``average="mean"``, an unknown normaliser or
        ``average``, a bad ``n_threads``.
    InputTypeError
        A ``TypeError``: an answer or reference that is not a string, a single string (or
        None, a mapping, a set) given as the list of answers or references, a ``normalize``
        callable that does not return a string.

    Examples
    --------
    >>> round(token_f1_score(["The Eiffel Tower", ["Paris", "City of Paris"]],
    ...                      ["eiffel tower.", "Paris, France"]), 3)
    0.833
    """
    return pair_scores("token_f1", references, answers, normalize, average, n_threads)


@overload
def substring_match_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = ...,
    regex: bool = ...,
    average: Literal["mean"] = ...,
    n_threads: int | None = ...,
) -> float: ...
@overload
def substring_match_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = ...,
    regex: bool = ...,
    average: None,
    n_threads: int | None = ...,
) -> NDArray[np.float64]: ...
def substring_match_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = "squad",
    regex: bool = False,
    average: Literal["mean"] | None = "mean",
    n_threads: int | None = None,
) -> float | NDArray[np.float64]:
    r"""Substring match: 1.0 if a normalised reference occurs in the normalised answer.

    ``Match_i = max_r [norm(r) in norm(answer_i)]``, averaged over answers: FlashRAG's
    ``Sub_ExactMatch`` (reported as "acc") and, with ``normalize="bergen"``, BERGEN's ``Match``
    ("M"). The reference must occur as consecutive code points, not as whole words (``"cat"``
    occurs in ``"concatenate"``), and a reference that normalises to nothing (``"The"``) occurs
    in every answer, as in both tools.

    With ``regex=True`` each reference is a regular expression (CuratedTREC's gold answers,
    such as ``r"\d+ (miles|mi)"``) searched in the normalised answer, case-insensitively, as
    FlashRAG does on CuratedTREC (``re.search(pattern, norm(answer), re.IGNORECASE)``); the
    pattern itself is not normalised. Patterns are read by the Rust ``regex`` crate, which
    matches in time linear in the pattern and the answer (no backtracking, so no pattern can
    make a call hang; one too large to compile is refused). Its syntax covers what QA data sets
    use of Python's ``re`` (literals, classes, ``\d \w \s \b``, groups, ``(?P<name>...)``,
    alternation, greedy and lazy repetition, inline flags) but has no backreferences and no
    look-around (such a pattern is an error); ``$`` matches only at the very end, and ``\w``
    and ``\b`` follow Unicode's word characters (``re`` counts letters and numbers).

    Reference: FlashRAG (Jin et al., 2024, "FlashRAG: A Modular Toolkit for Efficient
    Retrieval-Augmented Generation Research"), ``flashrag/evaluator/metrics.py``; BERGEN (Rau et
    al., 2024), ``modules/metrics.py``.

    Parameters
    ----------
    references
        One entry per answer: a string, or a list of acceptable strings (any one counts);
        regular expressions with ``regex``.
    answers
        The answers, one string each, as many as ``references``.
    normalize
        ``"squad"``, ``"bergen"``, ``"basic"``, ``None`` (compare the texts as given) or a
        callable ``str -> str`` applied to both sides (to the answers only with ``regex``);
        default ``"squad"``.
    regex
        Read each reference as a regular expression searched in the normalised answer.
    average
        ``"mean"`` (default): the mean over answers; ``None``: one score per answer.
    n_threads
        Threads of the Rust core (default ``RAGMETER_NUM_THREADS`` or all cores).

    Returns
    -------
    float or numpy.ndarray
        The mean in [0, 1] (a :class:`~ragmeter.MeanScore`, a ``float`` that carries
        ``n_queries``), or with ``average=None`` a float64 array of one score per answer.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: references and answers of different lengths, an empty list of
        acceptable references, no answers with ``average="mean"``, an unknown normaliser or
        ``average``, a bad ``n_threads``, a pattern that is not valid (with ``regex``; the
        message names its position).
    InputTypeError
        A ``TypeError``: an answer or reference that is not a string, a single string (or
        None, a mapping, a set) given as the list of answers or references, a ``normalize``
        callable that does not return a string.

    Examples
    --------
    >>> substring_match_score([["Eiffel Tower", "the tower"], "Rome"],
    ...                       ["It is the Eiffel tower.", "Paris"], average=None)
    array([1., 0.])
    >>> substring_match_score([[r"\d+ (miles|mi)"]], ["About 238,900 miles."], regex=True)
    1.0
    """
    if regex:
        return pattern_scores(
            "search", "substring_match", references, answers, normalize, average, n_threads
        )
    return pair_scores("substring_match", references, answers, normalize, average, n_threads)
