"""Search settings shared by every retriever."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from ..exceptions import InvalidInputError

__all__ = ["MATCH_MODES", "MatchMode", "RetrievalConfig"]

MatchMode = Literal["keyword", "strict", "semantic", "hybrid"]
MATCH_MODES: tuple[str, ...] = ("keyword", "strict", "semantic", "hybrid")


@dataclass(frozen=True)
class RetrievalConfig:
    """How a :class:`RetrievalIndex` searches.

    * ``top_k``: the most hits a search returns (>= 1).
    * ``match_mode``: ``"keyword"`` (BM25), ``"strict"`` (case-folded substring),
      ``"semantic"`` (cosine over document embeddings) or ``"hybrid"`` (reciprocal rank fusion
      of the keyword and semantic legs).
    * ``keyword_threshold``: BM25 scores below it are dropped (only positive scores are ever
      returned).
    * ``semantic_threshold``: the smallest cosine kept, in [-1, 1].
    * ``hybrid_alpha``: weight of the semantic leg in the fusion, in [0, 1]; the keyword leg
      weighs ``1 - hybrid_alpha``.
    * ``rrf_k``: the reciprocal rank fusion constant (Cormack, Clarke and Buettcher, SIGIR 2009).
    * ``use_normalized_text``: search ``document.normalized_text`` when it is set.
    * ``case_sensitive``: strict matching without case folding.
    """

    top_k: int = 10
    match_mode: MatchMode = "keyword"
    keyword_threshold: float = 0.0
    semantic_threshold: float = 0.0
    hybrid_alpha: float = 0.5
    rrf_k: int = 60
    use_normalized_text: bool = True
    case_sensitive: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int) or self.top_k < 1:
            raise InvalidInputError(
                f"top_k: must be an int >= 1 (the most hits to return), got {self.top_k!r}"
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


def _is_real(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
