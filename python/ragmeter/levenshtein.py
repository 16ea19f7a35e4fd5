"""Levenshtein distance, similarity and ranking, computed in ragmeter's Rust core.

The distance is the minimum number of single-item insertions, deletions and substitutions
(unit costs) that turn one sequence into the other. Strings are compared code point by code
point (``len(s)`` units, not UTF-8 bytes), exactly as given: no case folding or Unicode
normalisation unless ``normalize`` asks for it. Lists or tuples of hashable items (tokens) are
compared item by item; a ``str`` is never compared with a list.

Derived measures, with ``m = max(len(a), len(b))``:

* ``similarity = m - distance``
* ``normalized_distance = distance / m`` (0.0 when both are empty)
* ``normalized_similarity = 1 - normalized_distance``

``normalize`` is ``None`` (default), ``"basic"`` (lower case, white space collapsed),
``"squad"`` (also drops ASCII punctuation and the articles a/an/the) or a callable applied to
each input. The named normalisers apply to strings only.

The batch functions (:func:`pairwise`, :func:`one_to_many`, :func:`rank`, :func:`closest`)
run on ``n_threads`` threads, the calling thread included (default: ``RAGMETER_NUM_THREADS`` or
all cores): the calling thread reads the next chunk of strings (which needs the GIL) while the
others compute, then computes with them with the GIL released. Inputs under 16 KiB of text run
on the calling thread alone, where a hand-off to other threads would cost more than the work.
Results do not depend on the thread count. Do not change the lists from another thread during a
call.

Reference: V. I. Levenshtein (1966), "Binary codes capable of correcting deletions, insertions,
and reversals"; H. Hyyrö (2003), "A bit-vector algorithm for computing Levenshtein and
Damerau edit distances" (the kernel).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, NamedTuple, cast

import numpy as np
from numpy.typing import NDArray

from . import _core
from ._text import (
    NormalizeArg,
    SymbolTable,
    as_item_list,
    check_n_threads,
    check_unit_interval,
    is_token_sequence,
    normalize_callable,
    resolve_normalize,
)
from .exceptions import InputTypeError, InvalidInputError

__all__ = [
    "BackendInfo",
    "Match",
    "backend_info",
    "closest",
    "distance",
    "normalized_distance",
    "normalized_similarity",
    "one_to_many",
    "pairwise",
    "rank",
    "similarity",
]

MeasureName = Literal["distance", "similarity", "normalized_distance", "normalized_similarity"]


class Match(NamedTuple):
    """One ranked choice, as :func:`rank` and :func:`closest` return it.

    A named tuple: ``match.choice`` and ``match[0]`` are the same value. Its field ``index``
    shadows :meth:`tuple.index` (as in rapidfuzz's results).

    Attributes
    ----------
    choice
        The choice as given in ``choices`` (not ``key(choice)`` nor its normalised text).
    distance
        The Levenshtein distance between the query and the choice, after ``key`` and
        ``normalize``.
    similarity
        The normalised similarity ``1 - distance / max(len(query), len(choice))``, in [0, 1]
        (1.0 when both are empty).
    index
        The position of the choice in ``choices`` (0-based).

    Examples
    --------
    >>> match = closest("colour", ["color", "flavour"])  # 1 deletion over 6 code points
    >>> match.choice, match.distance, round(match.similarity, 4), match.index
    ('color', 1, 0.8333, 0)
    """

    choice: Any
    distance: int
    similarity: float
    # The spec names the field `index`; it shadows tuple.index, as in rapidfuzz's results.
    index: int  # type: ignore[assignment]

    def to_dict(self) -> dict[str, Any]:
        """The match as a dictionary, for JSON or a DataFrame row.

        Returns
        -------
        dict
            ``{"choice": ..., "distance": ..., "similarity": ..., "index": ...}``.

        Examples
        --------
        >>> closest("appel", ["apple", "ape"]).to_dict()  # 2 substitutions over 5 code points
        {'choice': 'apple', 'distance': 2, 'similarity': 0.6, 'index': 0}
        """
        return self._asdict()


class BackendInfo(NamedTuple):
    """What computes the distances, as :func:`backend_info` reports it.

    Attributes
    ----------
    name
        The implementation: ``"ragmeter"`` (its Rust core).
    available
        Whether it can run; always True, as the core is built into ragmeter.
    version
        ragmeter's version.
    license
        The implementation's licence (``"MIT"``).
    implementation
        The algorithm and the version of the ``rapidfuzz`` Rust crate the core is built with.
    reason
        Why this implementation is in use.
    """

    name: str
    available: bool
    version: str
    license: str
    implementation: str
    reason: str


def backend_info() -> BackendInfo:
    """Describe the implementation in use: ragmeter's Rust core, always available.

    ``implementation`` names the algorithm and the version of the ``rapidfuzz`` Rust crate
    the core is built with (the long-string fallback).

    Returns
    -------
    BackendInfo
        The name, availability, version, licence and algorithm of the implementation.

    Examples
    --------
    >>> info = backend_info()
    >>> info.name, info.available, info.license
    ('ragmeter', True, 'MIT')
    """
    kernel, crate_version = _core.edit_backend()
    return BackendInfo(
        name="ragmeter",
        available=True,
        version=_core.__version__,
        license="MIT",
        implementation=f"{kernel}; rapidfuzz crate {crate_version}",
        reason="built into ragmeter (no optional dependency)",
    )


def _type_name(value: object) -> str:
    return "None" if value is None else type(value).__name__


def _check_operand(value: object, place: str) -> None:
    if isinstance(value, str) or is_token_sequence(value):
        return
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise InputTypeError(
            f"{place} is {type(value).__name__}; decode it to str first (distances count code "
            "points), or pass list(value) to compare byte values"
        )
    raise InputTypeError(f"{place} is {_type_name(value)}; expected a str or a list/tuple of items")


def _apply(function: Callable[[str], str] | None, value: object, place: str) -> object:
    if function is None:
        return value
    if isinstance(value, str):
        return normalize_callable(function, value, place)
    result = function(value)  # type: ignore[arg-type]
    _check_operand(result, f"normalize({place})")
    return result


def _pair(a: object, b: object, normalize: object) -> tuple[int, int]:
    """``(distance, max length)`` of one pair, after the input rules."""
    name, function = resolve_normalize(normalize)
    _check_operand(a, "a")
    _check_operand(b, "b")
    a, b = _apply(function, a, "a"), _apply(function, b, "b")
    if isinstance(a, str) and isinstance(b, str):
        return _core.edit_count(a, b, name)
    if isinstance(a, str) or isinstance(b, str):
        raise InputTypeError(
            f"cannot compare {_type_name(a)} with {_type_name(b)}: compare two str, or two "
            "lists/tuples of items (list(text) turns a str into a list of characters)"
        )
    _no_named_normalizer(name)
    table = SymbolTable()
    # Only str and token sequences (lists, tuples) get past _check_operand; these are not str.
    a_items, b_items = cast("Sequence[Any]", a), cast("Sequence[Any]", b)
    return _core.edit_count(table.encode(a_items, "a"), table.encode(b_items, "b"), "none")


def _no_named_normalizer(name: str) -> None:
    if name != "none":
        raise InvalidInputError(
            f"normalize: {name!r} normalises text and cannot apply to lists of items; pass "
            "None or a callable"
        )


def distance(a: str | Any, b: str | Any, *, normalize: NormalizeArg = None) -> int:
    """Levenshtein distance: the fewest single-item insertions, deletions and substitutions.

    Parameters
    ----------
    a, b
        Two ``str`` (compared code point by code point), or two lists or tuples of hashable
        items (tokens, compared item by item; items are equal when they are equal as
        dictionary keys).
    normalize
        ``None`` (compare as given), ``"basic"`` (lower case, white space collapsed),
        ``"squad"`` (also without ASCII punctuation and the articles a/an/the), or a callable
        applied to ``a`` and to ``b`` first. The named normalisers apply to strings only.

    Returns
    -------
    int
        The number of edits, from 0 to ``max(len(a), len(b))``.

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``a`` or ``b`` is neither a ``str`` nor a list or tuple (``bytes``
        included: decode it first), a ``str`` is compared with a list, an item is unhashable,
        ``normalize`` is of another type or a callable ``normalize`` returns something else.
    InvalidInputError
        A ``ValueError``: an unknown normaliser name, a named normaliser applied to lists, or
        a ``str`` holding a lone surrogate code point (not valid Unicode text).

    Examples
    --------
    >>> distance("kitten", "sitting")  # k -> s, e -> i, insert g
    3
    >>> distance("Straße", "strasse", normalize="basic")  # 'ß' -> 's', insert 's'
    2
    >>> distance("The cat!", "a cat", normalize="squad")  # both read "cat"
    0
    >>> distance(["the", "cat", "sat"], ["the", "cat", "sits"])  # one token substituted
    1
    """
    return _pair(a, b, normalize)[0]


def similarity(a: str | Any, b: str | Any, *, normalize: NormalizeArg = None) -> int:
    """Levenshtein similarity: ``max(len(a), len(b)) - distance(a, b)``.

    Parameters
    ----------
    a, b
        Two ``str`` (compared code point by code point), or two lists or tuples of hashable
        items (tokens, compared item by item; items are equal when they are equal as
        dictionary keys).
    normalize
        ``None`` (compare as given), ``"basic"`` (lower case, white space collapsed),
        ``"squad"`` (also without ASCII punctuation and the articles a/an/the), or a callable
        applied to ``a`` and to ``b`` first. The named normalisers apply to strings only.

    Returns
    -------
    int
        From 0 to ``max(len(a), len(b))``; 0 for two empty inputs.

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``a`` or ``b`` is neither a ``str`` nor a list or tuple (``bytes``
        included: decode it first), a ``str`` is compared with a list, an item is unhashable,
        ``normalize`` is of another type or a callable ``normalize`` returns something else.
    InvalidInputError
        A ``ValueError``: an unknown normaliser name, a named normaliser applied to lists, or
        a ``str`` holding a lone surrogate code point (not valid Unicode text).

    Examples
    --------
    >>> similarity("kitten", "sitting")  # 7 - 3
    4
    """
    edits, longest = _pair(a, b, normalize)
    return longest - edits


def normalized_distance(a: str | Any, b: str | Any, *, normalize: NormalizeArg = None) -> float:
    """Normalised Levenshtein distance: ``distance(a, b) / max(len(a), len(b))``.

    Parameters
    ----------
    a, b
        Two ``str`` (compared code point by code point), or two lists or tuples of hashable
        items (tokens, compared item by item; items are equal when they are equal as
        dictionary keys).
    normalize
        ``None`` (compare as given), ``"basic"`` (lower case, white space collapsed),
        ``"squad"`` (also without ASCII punctuation and the articles a/an/the), or a callable
        applied to ``a`` and to ``b`` first. The named normalisers apply to strings only.

    Returns
    -------
    float
        In [0, 1]; 0.0 when both are empty.

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``a`` or ``b`` is neither a ``str`` nor a list or tuple (``bytes``
        included: decode it first), a ``str`` is compared with a list, an item is unhashable,
        ``normalize`` is of another type or a callable ``normalize`` returns something else.
    InvalidInputError
        A ``ValueError``: an unknown normaliser name, a named normaliser applied to lists, or
        a ``str`` holding a lone surrogate code point (not valid Unicode text).

    Examples
    --------
    >>> normalized_distance("kitten", "sitting")  # 3 / 7
    0.42857142857142855
    >>> normalized_distance("", "")
    0.0
    """
    edits, longest = _pair(a, b, normalize)
    return edits / longest if longest else 0.0


def normalized_similarity(a: str | Any, b: str | Any, *, normalize: NormalizeArg = None) -> float:
    """Normalised Levenshtein similarity: ``1 - normalized_distance(a, b)``.

    Parameters
    ----------
    a, b
        Two ``str`` (compared code point by code point), or two lists or tuples of hashable
        items (tokens, compared item by item; items are equal when they are equal as
        dictionary keys).
    normalize
        ``None`` (compare as given), ``"basic"`` (lower case, white space collapsed),
        ``"squad"`` (also without ASCII punctuation and the articles a/an/the), or a callable
        applied to ``a`` and to ``b`` first. The named normalisers apply to strings only.

    Returns
    -------
    float
        In [0, 1]; 1.0 when both are empty.

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``a`` or ``b`` is neither a ``str`` nor a list or tuple (``bytes``
        included: decode it first), a ``str`` is compared with a list, an item is unhashable,
        ``normalize`` is of another type or a callable ``normalize`` returns something else.
    InvalidInputError
        A ``ValueError``: an unknown normaliser name, a named normaliser applied to lists, or
        a ``str`` holding a lone surrogate code point (not valid Unicode text).

    Examples
    --------
    >>> normalized_similarity("kitten", "sitting")  # 1 - 3 / 7
    0.5714285714285714
    >>> normalized_similarity("abc", "")
    0.0
    """
    edits, longest = _pair(a, b, normalize)
    return 1.0 - (edits / longest if longest else 0.0)


def _measure_name(measure: object) -> str:
    if not isinstance(measure, str):
        raise InputTypeError(f"measure must be a str, got {_type_name(measure)}")
    return measure


def pairwise(
    a: Iterable[Any],
    b: Iterable[Any],
    *,
    measure: MeasureName = "distance",
    normalize: NormalizeArg = None,
    n_threads: int | None = None,
) -> NDArray[Any]:
    """``measure(a[i], b[i])`` for every ``i``, as a NumPy array.

    Parameters
    ----------
    a, b
        Two lists (or other iterables, but not a bare ``str``, a mapping or a set) of the same
        length. Their items are all ``str``, or, when the first item of ``a`` is a list or
        tuple, all lists or tuples of hashable items.
    measure
        ``"distance"`` or ``"similarity"`` (an int64 array), ``"normalized_distance"`` or
        ``"normalized_similarity"`` (a float64 array).
    normalize
        ``None``, ``"basic"``, ``"squad"`` or a callable, as for :func:`distance`.
    n_threads
        Threads, the calling thread included (None: ``RAGMETER_NUM_THREADS`` or every core);
        the result does not depend on it.

    Returns
    -------
    numpy.ndarray
        One value per pair, in the order of ``a`` and ``b``.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: ``a`` and ``b`` of different lengths, an unknown ``measure`` or
        normaliser, a bad ``n_threads``.
    InputTypeError
        A ``TypeError``: ``a`` or ``b`` is not a list of items (a single ``str``, None, a
        mapping, a set), or an item has another type than the first.

    Examples
    --------
    >>> pairwise(["kitten", "abc"], ["sitting", "abd"])
    array([3, 1])
    >>> pairwise(["flaw", ""], ["lawn", ""], measure="normalized_similarity")  # 1 - 2 / 4
    array([0.5, 1. ])
    """
    measure_name = _measure_name(measure)
    threads = check_n_threads(n_threads)
    name, function = resolve_normalize(normalize)
    left = as_item_list(a, "a", "str")
    right = as_item_list(b, "b", "str")
    if len(left) != len(right):
        raise InvalidInputError(
            "a and b must have the same length to be compared pair by pair, got "
            f"{len(left)} and {len(right)}"
        )
    if function is not None:
        left = [_apply(function, x, f"a[{i}]") for i, x in enumerate(left)]
        right = [_apply(function, y, f"b[{i}]") for i, y in enumerate(right)]
    if left and is_token_sequence(left[0]):
        _no_named_normalizer(name)
        left, right = _encode_pairs(left, right)
    return _core.edit_pairwise(left, right, measure_name, name, threads)


def _encode_pairs(left: list[Any], right: list[Any]) -> tuple[list[str], list[str]]:
    encoded_left, encoded_right = [], []
    for i, (x, y) in enumerate(zip(left, right, strict=True)):
        for value, place in ((x, f"a[{i}]"), (y, f"b[{i}]")):
            if not is_token_sequence(value):
                raise InputTypeError(
                    f"{place} is {_type_name(value)}; a[0] is a list of items, so every item "
                    "of a and b must be a list or tuple"
                )
        table = SymbolTable()  # each pair is compared on its own
        encoded_left.append(table.encode(x, f"a[{i}]"))
        encoded_right.append(table.encode(y, f"b[{i}]"))
    return encoded_left, encoded_right


def _query_and_choices(
    query: object,
    choices: object,
    key: Callable[[Any], Any] | None,
    function: Callable[[str], str] | None,
    name: str,
) -> tuple[object, list[Any], list[Any]]:
    """``(query text, choices as given, choice texts)`` ready for the core."""
    _check_operand(query, "query")
    originals = as_item_list(choices, "choices", "choices")
    texts = originals if key is None else [_keyed(key, c, i) for i, c in enumerate(originals)]
    query = _apply(function, query, "query")
    if function is not None:
        texts = [_apply(function, text, f"choices[{i}]") for i, text in enumerate(texts)]
    if isinstance(query, str):
        return query, originals, texts
    _no_named_normalizer(name)
    table = SymbolTable()
    # Only str and token sequences get past _check_operand; this query is not a str.
    encoded_query = table.encode(cast("Sequence[Any]", query), "query")
    encoded = []
    for i, text in enumerate(texts):
        if not is_token_sequence(text):
            raise InputTypeError(
                f"choices[{i}] is {_type_name(text)}; the query is a list of items, so every "
                "choice must be a list or tuple too"
            )
        encoded.append(table.encode(text, f"choices[{i}]"))
    return encoded_query, originals, encoded


def _keyed(key: Callable[[Any], Any], choice: object, i: int) -> object:
    text = key(choice)
    _check_operand(text, f"key(choices[{i}])")
    return text


def one_to_many(
    query: str | Any,
    choices: Iterable[Any],
    *,
    measure: MeasureName = "distance",
    normalize: NormalizeArg = None,
    n_threads: int | None = None,
) -> NDArray[Any]:
    """``measure(query, choice)`` for every choice, as a NumPy array.

    Parameters
    ----------
    query
        A ``str``, or a list or tuple of hashable items.
    choices
        A list (or other iterable, but not a bare ``str``, a mapping or a set) of items of the
        query's kind: ``str``, or lists or tuples of items.
    measure
        ``"distance"`` or ``"similarity"`` (an int64 array), ``"normalized_distance"`` or
        ``"normalized_similarity"`` (a float64 array).
    normalize
        ``None``, ``"basic"``, ``"squad"`` or a callable, as for :func:`distance`.
    n_threads
        Threads, the calling thread included (None: ``RAGMETER_NUM_THREADS`` or every core);
        the result does not depend on it.

    Returns
    -------
    numpy.ndarray
        One value per choice, in the order of ``choices``.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: an unknown ``measure`` or normaliser, a bad ``n_threads``.
    InputTypeError
        A ``TypeError``: ``query`` is neither a ``str`` nor a list or tuple, ``choices`` is not
        a list of items, or a choice is not of the query's kind.

    Examples
    --------
    >>> one_to_many("kitten", ["sitting", "kitten", ""], measure="normalized_similarity")
    array([0.57142857, 1.        , 0.        ])
    """
    measure_name = _measure_name(measure)
    threads = check_n_threads(n_threads)
    name, function = resolve_normalize(normalize)
    query_text, _, texts = _query_and_choices(query, choices, None, function, name)
    return _core.edit_one_to_many(query_text, texts, measure_name, name, threads)


def rank(
    query: str | Any,
    choices: Iterable[Any],
    *,
    key: Callable[[Any], Any] | None = None,
    limit: int | None = None,
    score_cutoff: float = 0.0,
    normalize: NormalizeArg = None,
    n_threads: int | None = None,
) -> list[Match]:
    """Choices ordered from most to least similar to ``query``.

    Each choice is compared through ``key(choice)`` when ``key`` is given. Matches are ordered
    by normalised similarity (descending), then distance (ascending), then position in
    ``choices``, so ties keep the input order. Choices with normalised similarity below
    ``score_cutoff`` (in [0, 1]) are dropped; ``limit`` keeps the first ``limit`` matches
    (``None``: all; ``0`` returns ``[]`` without reading ``choices``).

    Parameters
    ----------
    query
        A ``str``, or a list or tuple of hashable items.
    choices
        A list (or other iterable, but not a bare ``str``, a mapping or a set) of candidates.
    key
        A function giving the text (or item list) to compare of each choice, such as
        ``lambda doc: doc.text``; None compares the choices themselves.
    limit
        The most matches to return (None: all).
    score_cutoff
        The smallest normalised similarity kept, in [0, 1] (0.0 keeps every choice).
    normalize
        ``None``, ``"basic"``, ``"squad"`` or a callable, applied to the query and to every
        compared text (see :func:`distance`).
    n_threads
        Threads, the calling thread included (None: ``RAGMETER_NUM_THREADS`` or every core);
        the result does not depend on it.

    Returns
    -------
    list of Match
        Best first; empty when no choice reaches ``score_cutoff``.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: ``score_cutoff`` outside [0, 1], a negative ``limit``, an unknown
        normaliser, a bad ``n_threads``.
    InputTypeError
        A ``TypeError``: ``query`` or a (keyed) choice of the wrong kind, ``choices`` not a
        list, ``limit`` or ``score_cutoff`` not a number.

    Examples
    --------
    Similarities 5/6 (one insertion), 3/5, 3/5 and 2/5; ``apple`` and ``ape`` tie and keep
    their input order:

    >>> [m.choice for m in rank("appel", ["apple", "ape", "appeal", "maple"])]
    ['appeal', 'apple', 'ape', 'maple']
    >>> [m.index for m in rank("appel", ["apple", "ape", "appeal", "maple"], score_cutoff=0.5)]
    [2, 0, 1]
    >>> docs = [{"id": 7, "title": "Paris"}, {"id": 9, "title": "Lyon"}]
    >>> rank("paris", docs, key=lambda d: d["title"], normalize="basic", limit=1)[0].choice
    {'id': 7, 'title': 'Paris'}
    """
    cutoff = check_unit_interval(score_cutoff, "score_cutoff")
    top = _check_limit(limit)
    threads = check_n_threads(n_threads)
    name, function = resolve_normalize(normalize)
    if top == 0:
        _check_operand(query, "query")
        return []
    query_text, originals, texts = _query_and_choices(query, choices, key, function, name)
    indices, distances, similarities = _core.edit_rank(
        query_text, texts, name, top, cutoff, threads
    )
    return [
        Match(originals[i], d, s, i)
        for i, d, s in zip(indices, distances, similarities, strict=True)
    ]


def closest(
    query: str | Any,
    choices: Iterable[Any],
    *,
    key: Callable[[Any], Any] | None = None,
    score_cutoff: float = 0.0,
    normalize: NormalizeArg = None,
    n_threads: int | None = None,
) -> Match | None:
    """The best match of :func:`rank`, or ``None`` when no choice reaches ``score_cutoff``
    (or there are no choices).

    Parameters
    ----------
    query
        A ``str``, or a list or tuple of hashable items.
    choices
        A list (or other iterable, but not a bare ``str``, a mapping or a set) of candidates.
    key
        A function giving the text (or item list) to compare of each choice, such as
        ``lambda doc: doc.text``; None compares the choices themselves.
    score_cutoff
        The smallest normalised similarity accepted, in [0, 1].
    normalize
        ``None``, ``"basic"``, ``"squad"`` or a callable (see :func:`distance`).
    n_threads
        Threads, the calling thread included (None: ``RAGMETER_NUM_THREADS`` or every core).

    Returns
    -------
    Match or None
        The most similar choice (the first of the tied ones), or None.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: ``score_cutoff`` outside [0, 1], an unknown normaliser.
    InputTypeError
        A ``TypeError``: ``query`` or a choice of the wrong kind, ``choices`` not a list.

    Examples
    --------
    >>> closest("appel", ["apple", "ape", "maple"])  # apple and ape tie at 3/5
    Match(choice='apple', distance=2, similarity=0.6, index=0)
    >>> print(closest("appel", ["maple"], score_cutoff=0.5))  # 3 edits over 5: 0.4
    None
    """
    matches = rank(
        query,
        choices,
        key=key,
        limit=1,
        score_cutoff=score_cutoff,
        normalize=normalize,
        n_threads=n_threads,
    )
    return matches[0] if matches else None


def _check_limit(limit: object) -> int | None:
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)):
        raise InputTypeError(f"limit must be a non-negative int or None, got {_type_name(limit)}")
    if limit < 0:
        raise InvalidInputError(f"limit: must be >= 0 (or None for all matches), got {limit}")
    # A limit beyond any number of choices asks for all of them.
    return min(int(limit), sys.maxsize)
