"""Answer metrics from the edit distance: ANLS and edit similarity (see
:mod:`ragmeter.answers` for the rules they share)."""

from __future__ import annotations

from typing import Any, Literal, overload

import numpy as np
from numpy.typing import NDArray

from .._text import NormalizeArg, check_unit_interval
from ._common import pair_scores

__all__ = ["anls_score", "edit_similarity_score"]


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
        ``"squad"``, ``"bergen"``, ``"basic"``, ``None`` (compare the texts as given) or a
        callable ``str -> str`` applied to both sides; default ``"basic"``.
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
    return pair_scores("anls", references, answers, normalize, average, n_threads, value)


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
        ``"squad"``, ``"bergen"``, ``"basic"``, ``None`` (compare the texts as given) or a
        callable ``str -> str`` applied to both sides; default ``None``.
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
    return pair_scores("edit_similarity", references, answers, normalize, average, n_threads)
