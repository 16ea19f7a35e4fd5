"""Retrievers defined by a scoring function, and rankers built from a pairwise score."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .. import levenshtein
from .._text import resolve_normalize
from ..exceptions import InputTypeError, InvalidInputError
from ._config import RetrievalConfig
from ._documents import CorpusDocument
from ._index import RetrievalIndex
from ._response import RetrievalHit, RetrievalResponse

__all__ = [
    "CustomRetrievalIndex",
    "CustomScorer",
    "make_levenshtein_ranker",
    "make_pairwise_ranker",
]

CustomScorer = Callable[
    [str, list[CorpusDocument], RetrievalConfig], Sequence[RetrievalHit] | RetrievalResponse
]


class CustomRetrievalIndex:
    """A retriever whose ranking comes from ``custom_scorer_fn(query, documents, config)``.

    The scorer returns hits best first (a list of :class:`RetrievalHit`, e.g. from
    :func:`make_pairwise_ranker`); ``search`` wraps them in a :class:`RetrievalResponse`
    whose status is ``success`` or ``empty``. Without a scorer the index searches like a
    :class:`RetrievalIndex` with the same config. An exception raised by the scorer becomes a
    :class:`RuntimeError` naming the scorer.

    Parameters
    ----------
    config
        The default search settings, passed to the scorer (None: ``RetrievalConfig()``, whose
        ``top_k`` is 10).
    custom_scorer_fn
        ``custom_scorer_fn(query, documents, config)``, returning the hits (or a
        :class:`RetrievalResponse`); ``documents`` is the list of indexed documents in build
        order. :func:`make_pairwise_ranker` and :func:`make_levenshtein_ranker` make one.
        None: search as a :class:`RetrievalIndex`.

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``custom_scorer_fn`` is not callable.
    InvalidInputError
        A ``ValueError``: ``config`` is not a :class:`RetrievalConfig`.
    """

    def __init__(
        self,
        config: RetrievalConfig | None = None,
        *,
        custom_scorer_fn: CustomScorer | None = None,
    ) -> None:
        if custom_scorer_fn is not None and not callable(custom_scorer_fn):
            raise InputTypeError(
                f"custom_scorer_fn: expected a callable (query, documents, config) -> hits, "
                f"got {type(custom_scorer_fn).__name__}"
            )
        self._inner = RetrievalIndex(config)
        self.custom_scorer_fn = custom_scorer_fn

    @property
    def config(self) -> RetrievalConfig:
        """The default search settings (``top_k``, thresholds...), as given."""
        return self._inner.config

    def build(self, documents: Iterable[CorpusDocument]) -> CustomRetrievalIndex:
        """Index ``documents`` (as :meth:`RetrievalIndex.build`) and return the index itself.

        Parameters
        ----------
        documents
            The :class:`CorpusDocument` objects, with unique ``doc_id`` values.

        Returns
        -------
        CustomRetrievalIndex
            The index itself.

        Raises
        ------
        InvalidInputError
            A ``ValueError``: no documents, an item that is not a ``CorpusDocument``, two
            documents with one ``doc_id`` (see :meth:`RetrievalIndex.build`).
        """
        self._inner.build(documents)
        return self

    @property
    def documents(self) -> tuple[CorpusDocument, ...]:
        """The indexed documents, in build order (what ``custom_scorer_fn`` receives)."""
        return self._inner.documents

    @property
    def n_documents(self) -> int:
        """The number of indexed documents."""
        return self._inner.n_documents

    @property
    def has_embeddings(self) -> bool:
        """True when semantic search can run (every document has a finite embedding)."""
        return self._inner.has_embeddings

    def __repr__(self) -> str:
        scorer = _name_of(self.custom_scorer_fn) if self.custom_scorer_fn else None
        return (
            f"CustomRetrievalIndex(custom_scorer_fn={scorer}, top_k={self.config.top_k}, "
            f"n_documents={self.n_documents})"
        )

    def search(
        self,
        query: str,
        *,
        config: RetrievalConfig | None = None,
        query_embedding: Any = None,
    ) -> RetrievalResponse:
        """The hits ``custom_scorer_fn(query, documents, config)`` returns for ``query``.

        Without a custom scorer, the built-in search of :class:`RetrievalIndex`. The scorer's
        hits are kept in the order it returns them (the scorers of :func:`make_pairwise_ranker`
        and :func:`make_levenshtein_ranker` sort them and cut them to ``top_k``); a scorer that
        returns a :class:`RetrievalResponse` has it returned as is.

        Parameters
        ----------
        query
            The query text.
        config
            Settings for this search only (default: the index's), passed to the scorer.
        query_embedding
            Passed on to the built-in search when there is no custom scorer.

        Returns
        -------
        RetrievalResponse
            The hits, with status ``success`` or ``empty`` (a response the scorer returned
            is returned as it is).

        Raises
        ------
        InvalidInputError
            A ``ValueError``: the index is empty (call ``build`` first).
        RuntimeError
            The scorer raised; the message names it, the query and the exception (which is
            chained).
        InputTypeError
            A ``TypeError``: the scorer returned something other than hits (objects with
            ``doc`` and ``score``).

        Examples
        --------
        >>> from ragmeter import CorpusDocument, CustomRetrievalIndex, RetrievalHit
        >>> def longest_first(query, documents, config):
        ...     ranked = sorted(documents, key=lambda d: -len(d.text))[: config.top_k]
        ...     return [RetrievalHit(doc=d, score=float(len(d.text)), match_mode="length")
        ...             for d in ranked]
        >>> index = CustomRetrievalIndex(custom_scorer_fn=longest_first).build(
        ...     [CorpusDocument(doc_id=i, input_path="-", chunk_index=0, text=t)
        ...      for i, t in (("a", "short"), ("b", "much longer"))])
        >>> [hit.doc.doc_id for hit in index.search("anything")]
        ['b', 'a']
        """
        if self.custom_scorer_fn is None:
            return self._inner.search(query, config=config, query_embedding=query_embedding)
        if not self._inner.documents:
            raise InvalidInputError("search: the index is empty; call build(documents) first")
        try:
            result = self.custom_scorer_fn(
                query, list(self._inner.documents), config if config is not None else self.config
            )
        except Exception as exc:
            raise RuntimeError(
                f"custom_scorer_fn {_name_of(self.custom_scorer_fn)} failed on query "
                f"{query!r}: {type(exc).__name__}: {exc}"
            ) from exc
        if isinstance(result, RetrievalResponse):
            return result
        hits = tuple(result)
        for position, hit in enumerate(hits):
            if not hasattr(hit, "doc") or not hasattr(hit, "score"):
                raise InputTypeError(
                    f"custom_scorer_fn {_name_of(self.custom_scorer_fn)} returned a "
                    f"{type(hit).__name__} at position {position}; expected RetrievalHit"
                )
        return RetrievalResponse(hits, (), query)


def _name_of(fn: object) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


def make_pairwise_ranker(
    pairwise_fn: Callable[[str, str], float],
    *,
    use_normalized_text: bool = True,
    score_cutoff: float | None = None,
    match_mode: str = "pairwise",
    native_metric: str | None = None,
    greater_is_better: bool = True,
) -> Callable[[str, list[CorpusDocument], RetrievalConfig], list[RetrievalHit]]:
    """A ``custom_scorer_fn`` that ranks documents by ``pairwise_fn(query, document_text)``.

    Every document is scored on ``normalized_text`` (when ``use_normalized_text`` and it is
    set) or ``text``. Documents scoring below ``score_cutoff`` (above it when
    ``greater_is_better=False``, for distances) are dropped; the rest are sorted best first,
    ties in document order, and cut to ``config.top_k``. Each hit carries ``score ==
    native_score``, a 0-based ``rank`` and ``native_metric`` (default: the function's name).
    A score that is not a finite number raises :class:`InvalidInputError` (which
    :meth:`CustomRetrievalIndex.search` reports as a :class:`RuntimeError` naming the ranker).

    Parameters
    ----------
    pairwise_fn
        ``pairwise_fn(query, text) -> float``: a similarity (or, with
        ``greater_is_better=False``, a distance), called once per document and search.
    use_normalized_text
        Score ``normalized_text`` when a document has one; default True.
    score_cutoff
        Documents scoring below it (above it for distances) are dropped; None (default)
        keeps every document. A finite number.
    match_mode
        The ``match_mode`` of the hits; default ``"pairwise"``.
    native_metric
        The ``native_metric`` of the hits (None: ``pairwise_fn``'s name).
    greater_is_better
        True (default) for a similarity, False for a distance (lowest first).

    Returns
    -------
    callable
        ``ranker(query, documents, config) -> list[RetrievalHit]``, a ``custom_scorer_fn``
        for :class:`CustomRetrievalIndex`.

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``pairwise_fn`` is not callable.
    InvalidInputError
        A ``ValueError``: ``score_cutoff`` is infinite or NaN.

    Examples
    --------
    Rank by the number of words shared with the query (2, 1 and 0 here; the cutoff drops
    the last):

    >>> from ragmeter.retrieval import CorpusDocument, CustomRetrievalIndex
    >>> def shared_words(query, text):
    ...     return len(set(query.split()) & set(text.split()))
    >>> ranker = make_pairwise_ranker(shared_words, score_cutoff=1)
    >>> index = CustomRetrievalIndex(custom_scorer_fn=ranker).build([
    ...     CorpusDocument(doc_id="d1", input_path="pets.txt", text="the cat sat"),
    ...     CorpusDocument(doc_id="d2", input_path="pets.txt", text="the dog sat"),
    ...     CorpusDocument(doc_id="d3", input_path="pets.txt", text="a bird flew"),
    ... ])
    >>> [(hit.doc.doc_id, hit.score, hit.native_metric) for hit in index.search("the cat")]
    [('d1', 2.0, 'shared_words'), ('d2', 1.0, 'shared_words')]
    """
    if not callable(pairwise_fn):
        raise InputTypeError(
            f"pairwise_fn: expected a callable (query, text) -> float, "
            f"got {type(pairwise_fn).__name__}"
        )
    if score_cutoff is not None:
        _check_cutoff(score_cutoff)
    metric = (
        native_metric
        if native_metric is not None
        else getattr(pairwise_fn, "__name__", None) or type(pairwise_fn).__name__
    )
    sign = -1.0 if greater_is_better else 1.0

    def pairwise_ranker(
        query: str, documents: list[CorpusDocument], config: RetrievalConfig
    ) -> list[RetrievalHit]:
        scored = []
        for position, doc in enumerate(documents):
            text = (doc.normalized_text or doc.text) if use_normalized_text else doc.text
            score = pairwise_fn(query, text)
            if not isinstance(score, int | float) or not math.isfinite(score):
                raise InvalidInputError(
                    f"{metric} returned {score!r} for document {doc.doc_id!r}; "
                    "a ranking score must be a finite number"
                )
            score = float(score)
            if score_cutoff is not None and (
                score < score_cutoff if greater_is_better else score > score_cutoff
            ):
                continue
            scored.append((sign * score, position, score))
        scored.sort(key=lambda item: (item[0], item[1]))
        return [
            RetrievalHit(
                doc=documents[position],
                score=score,
                match_mode=match_mode,
                native_score=score,
                native_metric=metric,
                rank=rank,
            )
            for rank, (_, position, score) in enumerate(scored[: config.top_k])
        ]

    pairwise_ranker.__qualname__ = f"pairwise_ranker[{metric}]"
    return pairwise_ranker


def _check_cutoff(score_cutoff: object) -> float:
    if isinstance(score_cutoff, bool) or not isinstance(score_cutoff, int | float):
        raise InputTypeError(
            f"score_cutoff: must be a number, got {score_cutoff!r} of type "
            f"{type(score_cutoff).__name__}"
        )
    if not math.isfinite(score_cutoff):
        raise InvalidInputError(f"score_cutoff: must be a finite number, got {score_cutoff!r}")
    return float(score_cutoff)


def make_levenshtein_ranker(
    *,
    use_normalized_text: bool = True,
    score_cutoff: float = 0.0,
    normalize: Any = None,
) -> Callable[[str, list[CorpusDocument], RetrievalConfig], list[RetrievalHit]]:
    """A ``custom_scorer_fn`` ranking documents by normalised Levenshtein similarity to the
    query, ``1 - distance / max(len(query), len(text))`` over Unicode code points (1.0 for two
    empty strings; Levenshtein 1966).

    Order: similarity descending, then distance ascending, then document order (as
    :func:`ragmeter.levenshtein.rank`); documents below ``score_cutoff`` (in [0, 1]) are
    dropped and at most ``config.top_k`` hits are returned, with ``match_mode="levenshtein"``
    and ``native_metric="normalized_levenshtein_similarity"``. ``normalize`` is applied to the
    query and every text first (as in :func:`ragmeter.levenshtein.rank`; None: compare as is).

    Parameters
    ----------
    use_normalized_text
        Compare with ``normalized_text`` when a document has one; default True.
    score_cutoff
        The smallest normalised similarity kept, in [0, 1]; default 0.0 (keep all).
    normalize
        ``None``, ``"basic"``, ``"squad"`` or a callable ``str -> str``, as in
        :func:`ragmeter.levenshtein.rank`; checked here.

    Returns
    -------
    callable
        ``ranker(query, documents, config) -> list[RetrievalHit]``, a ``custom_scorer_fn``
        for :class:`CustomRetrievalIndex`.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: ``score_cutoff`` outside [0, 1].

    Examples
    --------
    ``"mitten"`` is one substitution from ``"kitten"`` (similarity 5/6), ``"sitting"``
    three edits over 7 code points (4/7):

    >>> from ragmeter.retrieval import CorpusDocument, CustomRetrievalIndex, RetrievalConfig
    >>> index = CustomRetrievalIndex(
    ...     RetrievalConfig(top_k=2), custom_scorer_fn=make_levenshtein_ranker()
    ... ).build([
    ...     CorpusDocument(doc_id=name, input_path="words.txt", text=name)
    ...     for name in ("sitting", "mitten", "kitten")
    ... ])
    >>> [(hit.doc.doc_id, round(hit.score, 4)) for hit in index.search("kitten")]
    [('kitten', 1.0), ('mitten', 0.8333)]
    """
    if not 0.0 <= _check_cutoff(score_cutoff) <= 1.0:
        raise InvalidInputError(
            f"score_cutoff: a normalised similarity cutoff must lie in [0, 1], got {score_cutoff!r}"
        )
    resolve_normalize(normalize)  # a bad normalize is an error here, not at the first search

    def levenshtein_ranker(
        query: str, documents: list[CorpusDocument], config: RetrievalConfig
    ) -> list[RetrievalHit]:
        texts = [
            (doc.normalized_text or doc.text) if use_normalized_text else doc.text
            for doc in documents
        ]
        matches = levenshtein.rank(
            query, texts, limit=config.top_k, score_cutoff=score_cutoff, normalize=normalize
        )
        return [
            RetrievalHit(
                doc=documents[match.index],
                score=float(match.similarity),
                match_mode="levenshtein",
                backend="ragmeter.levenshtein",
                native_score=float(match.similarity),
                native_metric="normalized_levenshtein_similarity",
                rank=rank,
            )
            for rank, match in enumerate(matches)
        ]

    return levenshtein_ranker
