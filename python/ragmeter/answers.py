"""Answer metrics: generated answers against reference answers.

Each function takes ``references`` and ``answers`` aligned by position (as ``y_true`` and
``y_pred`` in scikit-learn). A reference is one ``str`` or a list (or tuple) of acceptable
``str``; the best-scoring one counts. Each answer is one ``str``. The normalisation and the
arithmetic run in ragmeter's Rust core, in parallel and without the GIL (inputs under 16 KiB of
text run on the calling thread).

Rules shared by every function:

* ``references`` and ``answers`` must have the same length; a bare ``str``, ``None``, a
  mapping or a set in their place is refused with a :class:`TypeError`, a non-``str`` item with
  a :class:`TypeError` naming its position, an empty list of acceptable references with a
  :class:`ValueError`.
* ``normalize`` is ``"squad"``, ``"basic"``, ``None`` (compare as given) or a callable
  ``str -> str`` applied to both sides (in Python, so it is slower than the named ones).
* ``average="mean"`` returns the mean over all answers as a ``float`` (a mean over zero answers
  is undefined and raises :class:`ValueError`); ``average=None`` returns one score per answer
  as a float64 NumPy array.
* ``n_threads`` is the number of threads, the calling thread included (default:
  ``RAGMETER_NUM_THREADS`` or all cores): the calling thread reads the next chunk of strings,
  which needs the GIL, while the others score the current one, then scores with them without
  the GIL. ``n_threads=1`` does everything on the calling thread. The result does not depend
  on it.
"""

from __future__ import annotations

from typing import Any, Literal, overload

import numpy as np
from numpy.typing import NDArray

from . import _core
from ._text import (
    NormalizeArg,
    as_item_list,
    check_n_threads,
    check_unit_interval,
    normalize_callable,
    resolve_normalize,
)
from .exceptions import InvalidInputError
from .ranking import MeanScore

__all__ = [
    "anls_score",
    "edit_similarity_score",
    "exact_match_score",
    "normalize_basic",
    "normalize_squad",
    "token_f1_score",
]

_REFERENCES = "references (each a str or a list of acceptable str)"
_ANSWERS = "answers (one str each)"


def normalize_squad(text: str) -> str:
    """Normalise ``text`` as the official SQuAD v1.1 evaluation script does.

    Lower case (:meth:`str.lower`), remove ASCII punctuation (:data:`string.punctuation`),
    replace the whole words ``a``, ``an`` and ``the`` by a space (``re.sub(r"\\b(a|an|the)\\b",
    " ", text)``, where a word character is a Unicode letter or number), and collapse white
    space (``" ".join(text.split())``).

    Reference: Rajpurkar et al. (2016), "SQuAD: 100,000+ Questions for Machine Comprehension
    of Text", ``evaluate-v1.1.py``.

    Parameters
    ----------
    text
        The text to normalise.

    Returns
    -------
    str
        The normalised text (``""`` when nothing is left).

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``text`` is not a ``str``.

    Examples
    --------
    The hyphen is removed without a space, so the two words join:

    >>> normalize_squad("The  Eiffel-Tower!")
    'eiffeltower'
    >>> normalize_squad("An apple, a pear and the plum.")
    'apple pear and plum'
    """
    return _core.normalize_text(text, "squad")


def normalize_basic(text: str) -> str:
    """Lower case ``text`` and collapse its white space: ``" ".join(text.lower().split())``.

    This is the normalisation of the DocVQA / ST-VQA ANLS evaluation: punctuation is kept.

    Parameters
    ----------
    text
        The text to normalise.

    Returns
    -------
    str
        The lower-cased text, its runs of white space replaced by one space, without leading
        or trailing space.

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``text`` is not a ``str``.

    Examples
    --------
    >>> normalize_basic("  The Eiffel\\nTower. ")
    'the eiffel tower.'
    """
    return _core.normalize_text(text, "basic")


def _prepare(
    references: object, answers: object, normalize: object, average: object
) -> tuple[list[Any], list[Any], str]:
    if average not in ("mean", None):
        raise InvalidInputError(
            f"average: must be 'mean' or None (one score each), got {average!r}"
        )
    reference_list = as_item_list(references, "references", _REFERENCES)
    answer_list = as_item_list(answers, "answers", _ANSWERS)
    if len(reference_list) != len(answer_list):
        raise InvalidInputError(
            "references and answers must have the same length (one reference entry per "
            f"answer), got {len(reference_list)} references and {len(answer_list)} answers"
        )
    if average == "mean" and not answer_list:
        raise InvalidInputError(
            "references and answers are empty: a mean over 0 answers is undefined; pass "
            "average=None to get an empty array"
        )
    name, function = resolve_normalize(normalize)
    if function is not None:
        reference_list = [
            _normalize_reference(function, reference, i)
            for i, reference in enumerate(reference_list)
        ]
        answer_list = [
            normalize_callable(function, answer, f"answers[{i}]")
            for i, answer in enumerate(answer_list)
        ]
    return reference_list, answer_list, name


def _normalize_reference(function: Any, reference: object, i: int) -> object:
    if isinstance(reference, (list, tuple)):
        return [
            normalize_callable(function, alternative, f"references[{i}][{j}]")
            for j, alternative in enumerate(reference)
        ]
    return normalize_callable(function, reference, f"references[{i}]")


def _score(
    metric: str,
    references: object,
    answers: object,
    normalize: object,
    average: object,
    n_threads: object,
    threshold: float = 0.5,
) -> float | NDArray[np.float64]:
    threads = check_n_threads(n_threads)
    reference_list, answer_list, name = _prepare(references, answers, normalize, average)
    scores = _core.answer_scores(reference_list, answer_list, metric, name, threshold, threads)
    if average is None:
        return scores
    # A float that says what it averaged (answer metrics are always defined).
    return MeanScore(float(scores.mean()), n_queries=len(scores), n_undefined=0, metric=metric)


@overload
def exact_match_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = ...,
    average: Literal["mean"] = ...,
    n_threads: int | None = ...,
) -> float: ...
@overload
def exact_match_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = ...,
    average: None,
    n_threads: int | None = ...,
) -> NDArray[np.float64]: ...
def exact_match_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = "squad",
    average: Literal["mean"] | None = "mean",
    n_threads: int | None = None,
) -> float | NDArray[np.float64]:
    """Exact match: 1.0 if the normalised answer equals a normalised reference, else 0.0.

    ``EM_i = max_r [norm(answer_i) == norm(r)]``, averaged over answers. With the default
    ``normalize="squad"`` this is the official SQuAD v1.1 exact-match score (as a fraction, not a
    percentage): see :func:`normalize_squad`.

    Reference: Rajpurkar et al. (2016), "SQuAD: 100,000+ Questions for Machine Comprehension
    of Text", EMNLP.

    Parameters
    ----------
    references
        One entry per answer: a string, or a list of acceptable strings (the best one counts).
    answers
        The answers, one string each, as many as ``references``.
    normalize
        ``"squad"``, ``"basic"``, ``None`` (compare the texts as given) or a callable
        ``str -> str`` applied to both sides; default ``"squad"``.
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
    >>> exact_match_score(["The Eiffel Tower", ["Paris", "City of Paris"]],
    ...                   ["eiffel tower.", "Paris, France"])
    0.5
    """
    return _score("exact_match", references, answers, normalize, average, n_threads)


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
        ``"squad"``, ``"basic"``, ``None`` (compare the texts as given) or a callable
        ``str -> str`` applied to both sides; default ``"squad"``.
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
    return _score("token_f1", references, answers, normalize, average, n_threads)


@overload
def anls_score(
    references: Any,
    answers: Any,
    *,
    threshold: float = ...,
    normalize: NormalizeArg = ...,
    average: Literal["mean"] = ...,
    n_threads: int | None = ...,
) -> float: ...
@overload
def anls_score(
    references: Any,
    answers: Any,
    *,
    threshold: float = ...,
    normalize: NormalizeArg = ...,
    average: None,
    n_threads: int | None = ...,
) -> NDArray[np.float64]: ...
def anls_score(
    references: Any,
    answers: Any,
    *,
    threshold: float = 0.5,
    normalize: NormalizeArg = "basic",
    average: Literal["mean"] | None = "mean",
    n_threads: int | None = None,
) -> float | NDArray[np.float64]:
    """Average Normalized Levenshtein Similarity (ANLS).

    With ``NL(a, r) = lev(a, r) / max(|a|, |r|)`` over Unicode code points (0 for two empty
    strings), an answer scores ``max_r s(a, r)`` where ``s = 1 - NL`` if ``NL < threshold``
    and 0 otherwise; the scores are averaged over answers. The threshold is exclusive, as in the
    paper: a normalised distance of exactly ``threshold`` scores 0 (the ST-VQA/DocVQA
    evaluation script keeps it as ``1 - threshold``). ``threshold`` must lie in (0, 1].
    The default ``normalize="basic"`` lower-cases and collapses white space and keeps
    punctuation, as the DocVQA evaluation does (see :func:`normalize_basic`).

    Reference: Biten et al. (2019), "Scene Text Visual Question Answering", ICCV; Mathew et
    al. (2021), "DocVQA: A Dataset for VQA on Document Images", WACV.

    Parameters
    ----------
    references
        One entry per answer: a string, or a list of acceptable strings (the best one counts).
    answers
        The answers, one string each, as many as ``references``.
    threshold
        The normalised edit distance from which an answer scores 0, in (0, 1]; default 0.5.
    normalize
        ``"squad"``, ``"basic"``, ``None`` (compare the texts as given) or a callable
        ``str -> str`` applied to both sides; default ``"basic"``.
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
        ``average``, a bad ``n_threads``, a ``threshold`` outside (0, 1].
    InputTypeError
        A ``TypeError``: an answer or reference that is not a string, a single string (or
        None, a mapping, a set) given as the list of answers or references, a ``normalize``
        callable that does not return a string.

    Examples
    --------
    >>> round(anls_score(["The Eiffel Tower", ["Paris", "City of Paris"]],
    ...                  ["eiffel tower.", "Paris, France"]), 3)
    0.344
    """
    value = check_unit_interval(threshold, "threshold", allow_zero=False)
    return _score("anls", references, answers, normalize, average, n_threads, value)


@overload
def edit_similarity_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = ...,
    average: Literal["mean"] = ...,
    n_threads: int | None = ...,
) -> float: ...
@overload
def edit_similarity_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = ...,
    average: None,
    n_threads: int | None = ...,
) -> NDArray[np.float64]: ...
def edit_similarity_score(
    references: Any,
    answers: Any,
    *,
    normalize: NormalizeArg = None,
    average: Literal["mean"] | None = "mean",
    n_threads: int | None = None,
) -> float | NDArray[np.float64]:
    """Normalised Levenshtein similarity without a threshold, best reference counting.

    ``max_r (1 - lev(a, r) / max(|a|, |r|))`` over Unicode code points (1.0 for two empty
    strings), averaged over answers. By default the texts are compared as given
    (``normalize=None``): case and white space count as edits.

    Reference: Levenshtein (1966), "Binary codes capable of correcting deletions, insertions,
    and reversals"; the ANLS paper (Biten et al., 2019) without its threshold.

    Parameters
    ----------
    references
        One entry per answer: a string, or a list of acceptable strings (the best one counts).
    answers
        The answers, one string each, as many as ``references``.
    normalize
        ``"squad"``, ``"basic"``, ``None`` (compare the texts as given) or a callable
        ``str -> str`` applied to both sides; default ``None``.
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
    >>> edit_similarity_score(["kitten"], ["sitting"])  # 3 edits over 7 code points
    0.5714285714285714
    """
    return _score("edit_similarity", references, answers, normalize, average, n_threads)
