"""What a search returns: ranked hits plus the status of every leg that produced them.

A search can be partial: a hybrid search whose semantic leg could not run still returns the
keyword hits, and says so with the status ``degraded``. The evaluation harness refuses to score
such responses silently.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar, overload

from ..exceptions import InvalidInputError
from ._documents import CorpusDocument

_E = TypeVar("_E", bound=StrEnum)

__all__ = [
    "ErrorCategory",
    "ErrorRecord",
    "LegContribution",
    "LegKind",
    "LegOutcome",
    "LegStatus",
    "RetrievalHit",
    "RetrievalResponse",
    "RetrievalStatus",
]


def _member(enum: type[_E], value: object, argument: str) -> _E:
    """``enum(value)``, or an :class:`InvalidInputError` naming the argument and the members."""
    try:
        return enum(value)  # type: ignore[arg-type]
    except ValueError:
        names = ", ".join(repr(m.value) for m in enum)
        raise InvalidInputError(f"{argument}: must be one of {names}; got {value!r}") from None


class RetrievalStatus(StrEnum):
    """Status of a whole search, as :attr:`RetrievalResponse.status` gives it.

    A ``str`` enum: ``RetrievalStatus.SUCCESS == "success"``. :func:`~ragmeter.evaluate_retrieval`
    refuses to score a ``degraded``, ``failed`` or ``cancelled`` search unless
    ``on_degraded="warn"``, and ``RetrievalEstimator.predict`` always refuses them.

    Attributes
    ----------
    SUCCESS
        Every requested leg ran and the search has hits.
    EMPTY
        Every requested leg ran and found nothing: a complete, empty ranking.
    DEGRADED
        Some leg failed or degraded and the hits of the others were returned: a partial
        ranking.
    FAILED
        Every requested leg failed: no ranking.
    CANCELLED
        The search was stopped before it finished (set by a retriever; never derived from
        the legs).

    Examples
    --------
    >>> RetrievalStatus("degraded") is RetrievalStatus.DEGRADED
    True
    """

    SUCCESS = "success"
    EMPTY = "empty"
    DEGRADED = "degraded"
    FAILED = "failed"
    CANCELLED = "cancelled"


class LegStatus(StrEnum):
    """Status of one leg (lexical, dense, ...) of a search, as :attr:`LegOutcome.status`.

    Attributes
    ----------
    SUCCESS
        The leg ran and found hits.
    EMPTY
        The leg ran and found nothing.
    DEGRADED
        The leg ran in part (its :class:`ErrorRecord` says why).
    FAILED
        The leg could not run (its :class:`ErrorRecord` says why).
    SKIPPED
        The search mode does not use this leg (the dense leg of a keyword search); a skipped
        leg does not count towards the search's status.
    """

    SUCCESS = "success"
    EMPTY = "empty"
    DEGRADED = "degraded"
    FAILED = "failed"
    SKIPPED = "skipped"


class LegKind(StrEnum):
    """The kind of one leg of a search: ``lexical`` (BM25, substring), ``dense`` (embeddings),
    ``graph`` or ``metadata``."""

    LEXICAL = "lexical"
    DENSE = "dense"
    GRAPH = "graph"
    METADATA = "metadata"


class ErrorCategory(StrEnum):
    """What kind of problem an :class:`ErrorRecord` reports: the ``source`` of the documents,
    ``parse``, ``validation`` of the input, a missing ``capability`` (a hybrid search without a
    query embedding), ``security``, ``resource`` or an ``internal`` error."""

    SOURCE = "source"
    PARSE = "parse"
    VALIDATION = "validation"
    CAPABILITY = "capability"
    SECURITY = "security"
    RESOURCE = "resource"
    INTERNAL = "internal"


@dataclass(frozen=True)
class ErrorRecord:
    """Why a leg failed or degraded: a stable ``code`` (``"NO_QUERY_EMBEDDING"``) and a
    message for people.

    Parameters
    ----------
    code
        A stable identifier of the problem, for programs: ``"NO_DENSE_INDEX"`` (the
        documents have no embeddings), ``"NO_QUERY_EMBEDDING"`` (the query has none), or a
        custom retriever's own.
    category
        What kind of problem (an :class:`ErrorCategory` or its string).
    message
        What happened, for people.
    stage
        The step that failed (``"retrieve"``), or None.
    source_id
        The source concerned, or None.
    exception_type
        The name of the exception behind the problem, or None.
    details
        Any other information, as a mapping (not hashed).
    """

    code: str
    category: ErrorCategory | str
    message: str
    stage: str | None = None
    source_id: str | None = None
    exception_type: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON-ready values (the category as its string).

        Returns
        -------
        dict
            ``code``, ``category``, ``message``, ``stage``, ``source_id``,
            ``exception_type`` and ``details`` (a plain ``dict``).
        """
        return {
            "code": self.code,
            "category": str(self.category),
            "message": self.message,
            "stage": self.stage,
            "source_id": self.source_id,
            "exception_type": self.exception_type,
            "details": dict(self.details),
        }


@dataclass(frozen=True)
class LegOutcome:
    """What one leg of a search did. A degraded or failed leg must carry its ``error``.

    Parameters
    ----------
    leg
        Which leg (a :class:`LegKind` or its string).
    status
        What it did (a :class:`LegStatus` or its string).
    hit_count
        How many hits it produced.
    generation
        The :attr:`~RetrievalIndex.index_generation` of the index it searched, or None.
    backend
        What ran it (``"bm25"``, ``"bruteforce"``...), or None.
    error
        Why it degraded or failed; required for those statuses.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: a degraded or failed leg without ``error``.
    InvalidInputError
        A ``ValueError``: a ``leg`` or ``status`` string that names no member of its enum.
    """

    leg: LegKind
    status: LegStatus
    hit_count: int = 0
    generation: str | None = None
    backend: str | None = None
    error: ErrorRecord | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "leg", _member(LegKind, self.leg, "leg"))
        object.__setattr__(self, "status", _member(LegStatus, self.status, "status"))
        if self.status in (LegStatus.DEGRADED, LegStatus.FAILED) and self.error is None:
            raise InvalidInputError(
                f"error: a {self.status} {self.leg} leg needs an ErrorRecord saying why"
            )

    @property
    def ran(self) -> bool:
        """True when the leg produced its ranking (status success or empty)."""
        return self.status in (LegStatus.SUCCESS, LegStatus.EMPTY)

    def to_dict(self) -> dict[str, Any]:
        """The outcome as plain JSON-ready values (its error as :meth:`ErrorRecord.to_dict`).

        Returns
        -------
        dict
            ``leg``, ``status``, ``hit_count``, ``generation``, ``backend`` and ``error``
            (None or a dict).
        """
        return {
            "leg": str(self.leg),
            "status": str(self.status),
            "hit_count": self.hit_count,
            "generation": self.generation,
            "backend": self.backend,
            "error": None if self.error is None else self.error.to_dict(),
        }


@dataclass(frozen=True)
class LegContribution:
    """A leg's part in a fused hit: its 0-based rank there and its native score.

    Parameters
    ----------
    leg
        Which leg ranked the document.
    rank
        The document's 0-based rank in that leg.
    native_score
        The leg's own score of the document (BM25 score, cosine), or None.
    native_metric
        What that score is (``"bm25"``, ``"cosine_similarity"``), or None.
    """

    leg: LegKind
    rank: int
    native_score: float | None = None
    native_metric: str | None = None


@dataclass(frozen=True)
class RetrievalHit:
    """A ranked document. Only ``doc``, ``score`` and ``match_mode`` take part in equality;
    the other fields say where the hit came from. ``rank`` is 0-based.

    Parameters
    ----------
    doc
        The document found.
    score
        Its score in this search, higher is better: the BM25 score (keyword), 1.0 (strict),
        the cosine (semantic), the fused reciprocal rank score (hybrid), or a custom
        scorer's.
    match_mode
        The mode that found it (``"keyword"``, ``"strict"``, ``"semantic"``, ``"hybrid"``,
        or a custom ranker's, such as ``"levenshtein"``).
    backend
        What computed it (``"bm25"``, ``"substring"``, ``"bruteforce"``, ``"rrf"``...), or
        None.
    index_generation
        The :attr:`~RetrievalIndex.index_generation` of the index searched, or None.
    native_score
        The score as its method defines it (equal to ``score`` but for fused hits, where it is
        None), or None.
    native_metric
        What the native score is (``"bm25"``, ``"cosine_similarity"``,
        ``"reciprocal_rank_fusion"``...), or None.
    contributions
        For a fused (hybrid) hit, each leg's rank and native score; empty otherwise.
    rank
        The hit's 0-based position in the response, or None.
    """

    doc: CorpusDocument
    score: float
    match_mode: str
    backend: str | None = field(default=None, compare=False)
    index_generation: str | None = field(default=None, compare=False)
    native_score: float | None = field(default=None, compare=False)
    native_metric: str | None = field(default=None, compare=False)
    contributions: tuple[LegContribution, ...] = field(default=(), compare=False)
    rank: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class RetrievalResponse(Sequence[RetrievalHit]):
    """The hits of one search (it behaves as a list of :class:`RetrievalHit`), the legs that
    produced them and the overall ``status``.

    When ``status`` is not given it is derived from the legs, ignoring skipped ones: every leg
    failed -> ``failed``; some leg failed or degraded -> ``degraded``; no hits -> ``empty``;
    otherwise ``success``. ``len(response)``, iteration, indexing and ``bool(response)`` act
    on the hits.

    Parameters
    ----------
    hits
        The hits, best first (any sequence; stored as a tuple).
    legs
        The outcome of each leg of the search (stored as a tuple).
    query
        The query text, or None.
    status
        The overall status (a :class:`RetrievalStatus` or its string); None (default):
        derived from the legs as above.

    Raises
    ------
    ValueError
        A ``status`` string that names no :class:`RetrievalStatus`.

    Examples
    --------
    A hybrid search whose dense leg failed returns the keyword hits, marked ``degraded``:

    >>> from ragmeter.retrieval import CorpusDocument, ErrorRecord
    >>> doc = CorpusDocument(doc_id="d1", input_path="faq.md", text="Reset your password")
    >>> keyword = LegOutcome("lexical", "success", hit_count=1)
    >>> dense = LegOutcome("dense", "failed", error=ErrorRecord(
    ...     "NO_QUERY_EMBEDDING", "capability", "the query has no embedding"))
    >>> response = RetrievalResponse(
    ...     (RetrievalHit(doc, 2.5, "hybrid"),), (keyword, dense), query="password")
    >>> str(response.status), response.doc_ids, len(response)
    ('degraded', ['d1'], 1)
    >>> [record.code for record in response.error_records()]
    ['NO_QUERY_EMBEDDING']
    """

    hits: tuple[RetrievalHit, ...] = ()
    legs: tuple[LegOutcome, ...] = ()
    query: str | None = None
    status: RetrievalStatus | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "hits", tuple(self.hits))
        object.__setattr__(self, "legs", tuple(self.legs))
        if self.status is None:
            object.__setattr__(self, "status", self._derive_status())
        else:
            object.__setattr__(self, "status", _member(RetrievalStatus, self.status, "status"))

    def _derive_status(self) -> RetrievalStatus:
        requested = [leg for leg in self.legs if leg.status is not LegStatus.SKIPPED]
        if requested and all(leg.status is LegStatus.FAILED for leg in requested):
            return RetrievalStatus.FAILED
        if any(leg.status in (LegStatus.FAILED, LegStatus.DEGRADED) for leg in requested):
            return RetrievalStatus.DEGRADED
        return RetrievalStatus.SUCCESS if self.hits else RetrievalStatus.EMPTY

    def __len__(self) -> int:
        return len(self.hits)

    def __iter__(self) -> Iterator[RetrievalHit]:
        return iter(self.hits)

    @overload
    def __getitem__(self, index: int) -> RetrievalHit: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[RetrievalHit, ...]: ...
    def __getitem__(self, index: int | slice) -> RetrievalHit | tuple[RetrievalHit, ...]:
        return self.hits[index]

    def __bool__(self) -> bool:
        return bool(self.hits)

    def leg(self, kind: LegKind | str) -> LegOutcome | None:
        """The outcome of the leg of this kind, or None when the search had no such leg.

        Parameters
        ----------
        kind
            A :class:`LegKind` or its string (``"lexical"``, ``"dense"``...).

        Returns
        -------
        LegOutcome or None
            The first leg of that kind.

        Raises
        ------
        ValueError
            A string that names no :class:`LegKind`.
        """
        kind = _member(LegKind, kind, "kind")
        return next((leg for leg in self.legs if leg.leg is kind), None)

    def error_records(self) -> list[ErrorRecord]:
        """The errors of the legs that degraded or failed, in leg order.

        Returns
        -------
        list of ErrorRecord
            Empty when every leg ran.
        """
        return [leg.error for leg in self.legs if leg.error is not None]

    @property
    def degraded_legs(self) -> list[LegOutcome]:
        """Requested legs that failed or degraded."""
        return [leg for leg in self.legs if leg.status in (LegStatus.FAILED, LegStatus.DEGRADED)]

    @property
    def doc_ids(self) -> list[Any]:
        """The document identifiers of the hits, best first."""
        return [hit.doc.doc_id for hit in self.hits]

    def to_dict(self) -> dict[str, Any]:
        """Status, query, hit count and legs (not the hits themselves), as JSON-ready values.

        Returns
        -------
        dict
            ``status`` (a string), ``query``, ``hit_count`` and ``legs`` (each as
            :meth:`LegOutcome.to_dict`).
        """
        return {
            "status": str(self.status),
            "query": self.query,
            "hit_count": len(self.hits),
            "legs": [leg.to_dict() for leg in self.legs],
        }
