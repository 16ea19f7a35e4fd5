"""Search settings shared by every retriever."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..exceptions import InvalidInputError
from ..options import MAX_INDEX, shorten

__all__ = ["BM25_VARIANTS", "MATCH_MODES", "Bm25Variant", "MatchMode", "RetrievalConfig"]

MatchMode = Literal["keyword", "strict", "semantic", "hybrid"]
MATCH_MODES: tuple[str, ...] = ("keyword", "strict", "semantic", "hybrid")
Bm25Variant = Literal["lucene", "okapi", "bm25l", "bm25plus"]
BM25_VARIANTS: tuple[str, ...] = ("lucene", "okapi", "bm25l", "bm25plus")
#: The lower bound ``delta`` of BM25L and BM25+ when ``bm25_delta`` is None (Lv and Zhai 2011,
#: and rank_bm25's defaults).
DEFAULT_BM25_DELTA = {"bm25l": 0.5, "bm25plus": 1.0}


@dataclass(frozen=True)
class RetrievalConfig:
    """How a :class:`RetrievalIndex` searches: the mode, the number of hits, the thresholds,
    the hybrid fusion and BM25's parameters.

    Every field is checked when the object is made. Values may be NumPy scalars (a
    scikit-learn parameter grid or distribution gives those); they are stored as Python
    ``int``, ``float``, ``bool`` and ``str``. The object is frozen; one built index searches
    under any config (``index.search(query, config=...)``), so a grid over these fields builds
    the index once.

    Parameters
    ----------
    top_k
        The most hits a search returns; an int >= 1, default 10.
    match_mode
        ``"keyword"`` (default: BM25), ``"strict"`` (the query as a case-folded substring of
        the text), ``"semantic"`` (cosine between the query's and the documents' embeddings)
        or ``"hybrid"`` (reciprocal rank fusion of the keyword and semantic legs).
    keyword_threshold
        BM25 scores below it are dropped; any finite number, default 0.0. Only scores > 0
        are ever returned, so a threshold <= 0 drops nothing more.
    semantic_threshold
        The smallest cosine kept by the semantic leg, in [-1, 1]; default 0.0, which drops
        the documents pointing away from the query (-1.0 keeps every document).
    hybrid_alpha
        Weight of the semantic leg in the hybrid fusion, in [0, 1], default 0.5; the keyword
        leg weighs ``1 - hybrid_alpha``.
    rrf_k
        The reciprocal rank fusion constant (Cormack, Clarke and Buettcher, SIGIR 2009): a
        hit at 0-based rank ``r`` of a leg adds ``weight / (rrf_k + r + 1)``. An int >= 0,
        default 60; a smaller value favours the top ranks of each leg more.
    use_normalized_text
        Search ``document.normalized_text`` when it is set (and not empty) instead of
        ``document.text``; default True. BM25 reads a document's ``tokens`` first when they
        are given.
    case_sensitive
        For ``"strict"`` matching only: compare without case folding; default False.
    bm25_k1
        BM25's term-frequency saturation: how much a repeated query term adds (0: a term
        counts once, whatever its frequency). A finite number >= 0, default 1.5; 1.2 to 2.0
        is usual.
    bm25_b
        BM25's length normalisation, in [0, 1], default 0.75: the length factor is
        ``L = 1 - b + b * length / mean length`` (see :class:`RetrievalIndex`), so 0 ignores
        the document's length and 1 weighs it in full.
    bm25_variant
        ``"lucene"`` (default: Lucene's idf ``ln(1 + (N - df + 0.5) / (df + 0.5))``, always
        positive, with the classic ``(k1 + 1)`` numerator), ``"okapi"`` (rank_bm25's
        ``BM25Okapi``: idf ``ln((N - df + 0.5) / (df + 0.5))``, a negative idf replaced by
        0.25 times the mean idf), ``"bm25l"`` or ``"bm25plus"`` (BM25L and BM25+, Lv and Zhai
        2011, as written by Trotman et al. 2014). :class:`RetrievalIndex` gives the formulas.
    bm25_delta
        The lower bound ``delta`` of BM25L and BM25+: a finite number >= 0, or None (default)
        for the variant's default, 0.5 for BM25L and 1.0 for BM25+ (:attr:`bm25_delta_value`).
        Ignored by the other variants, as scikit-learn's SVC ignores ``degree`` unless its
        kernel is polynomial.

    Raises
    ------
    InvalidInputError
        A ``ValueError`` naming the field, for a value of the wrong type or out of its range.

    Examples
    --------
    >>> config = RetrievalConfig(top_k=5, bm25_variant="bm25plus")
    >>> config.bm25_k1, config.bm25_delta_value
    (1.5, 1.0)
    >>> try:
    ...     RetrievalConfig(bm25_b=1.5)
    ... except ValueError as error:
    ...     print(error)
    bm25_b: BM25's length normalisation must lie in [0, 1], got 1.5
    """

    top_k: int = 10
    match_mode: MatchMode = "keyword"
    keyword_threshold: float = 0.0
    semantic_threshold: float = 0.0
    hybrid_alpha: float = 0.5
    rrf_k: int = 60
    use_normalized_text: bool = True
    case_sensitive: bool = False
    bm25_k1: float = 1.5
    bm25_b: float = 0.75
    bm25_variant: Bm25Variant = "lucene"
    bm25_delta: float | None = None

    def __post_init__(self) -> None:
        for name in ("top_k", "rrf_k"):
            _store(self, name, _as_int(getattr(self, name)))
        for name in (
            "keyword_threshold",
            "semantic_threshold",
            "hybrid_alpha",
            "bm25_k1",
            "bm25_b",
            "bm25_delta",
        ):
            _store(self, name, _as_float(getattr(self, name)))
        for name in ("use_normalized_text", "case_sensitive"):
            value = getattr(self, name)
            if not isinstance(value, bool | np.bool_):
                raise InvalidInputError(f"{name}: must be True or False, got {value!r}")
            _store(self, name, bool(value))
        for name in ("match_mode", "bm25_variant"):
            if isinstance(getattr(self, name), str):
                _store(self, name, str(getattr(self, name)))
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int) or self.top_k < 1:
            raise InvalidInputError(
                f"top_k: must be an int >= 1 (the most hits to return), got {shorten(self.top_k)}"
            )
        if self.top_k > MAX_INDEX:
            # The core counts hits in 64 bits (a search raised OverflowError).
            raise InvalidInputError(
                f"top_k: must be at most {MAX_INDEX} (more than any corpus holds), got "
                f"{shorten(self.top_k, 40)}"
            )
        if self.match_mode not in MATCH_MODES:
            raise InvalidInputError(
                f"match_mode: must be one of {', '.join(map(repr, MATCH_MODES))}, "
                f"got {self.match_mode!r}"
            )
        if not _is_real(self.keyword_threshold) or not math.isfinite(self.keyword_threshold):
            raise InvalidInputError(
                f"keyword_threshold: must be a finite number, got {self.keyword_threshold!r}"
            )
        if not _is_real(self.semantic_threshold) or not -1.0 <= self.semantic_threshold <= 1.0:
            raise InvalidInputError(
                f"semantic_threshold: a cosine threshold must lie in [-1, 1], "
                f"got {self.semantic_threshold!r}"
            )
        if not _is_real(self.hybrid_alpha) or not 0.0 <= self.hybrid_alpha <= 1.0:
            raise InvalidInputError(
                f"hybrid_alpha: the weight of the semantic leg must lie in [0, 1], "
                f"got {self.hybrid_alpha!r}"
            )
        if isinstance(self.rrf_k, bool) or not isinstance(self.rrf_k, int) or self.rrf_k < 0:
            raise InvalidInputError(f"rrf_k: must be an int >= 0, got {self.rrf_k!r}")
        if not _is_real(self.bm25_k1) or not (math.isfinite(self.bm25_k1) and self.bm25_k1 >= 0):
            raise InvalidInputError(
                f"bm25_k1: must be a finite number >= 0 (BM25's term-frequency saturation; "
                f"1.2-2.0 is usual), got {self.bm25_k1!r}"
            )
        if not _is_real(self.bm25_b) or not 0.0 <= self.bm25_b <= 1.0:
            raise InvalidInputError(
                f"bm25_b: BM25's length normalisation must lie in [0, 1], got {self.bm25_b!r}"
            )
        if self.bm25_variant not in BM25_VARIANTS:
            raise InvalidInputError(
                f"bm25_variant: must be one of {', '.join(map(repr, BM25_VARIANTS))}, "
                f"got {self.bm25_variant!r}"
            )
        if self.bm25_delta is not None and (
            not _is_real(self.bm25_delta)
            or not (math.isfinite(self.bm25_delta) and self.bm25_delta >= 0)
        ):
            raise InvalidInputError(
                f"bm25_delta: the lower bound of BM25L and BM25+ must be a finite number >= 0 "
                f"or None (the variant's default), got {self.bm25_delta!r}"
            )

    @property
    def bm25_delta_value(self) -> float:
        """The ``delta`` BM25 uses: ``bm25_delta``, or the variant's default (0.5 for BM25L,
        1.0 for BM25+, 0.0 for the variants without a lower bound)."""
        if self.bm25_delta is not None:
            return self.bm25_delta
        return DEFAULT_BM25_DELTA.get(self.bm25_variant, 0.0)


def _is_real(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _as_int(value: object) -> object:
    """A NumPy integer as an ``int``; anything else unchanged (and checked by the caller)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_):
        return int(value)
    return value


def _as_float(value: object) -> object:
    """A real number (NumPy's too) as a ``float``; anything else unchanged."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_):
        return float(value)
    return value


def _store(config: RetrievalConfig, name: str, value: object) -> None:
    object.__setattr__(config, name, value)
