"""One search of a query set as the index hands it over: a query's ranking and the outcome of
its legs (``Search``), and a hybrid search's arrays (``Hybrid``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._bm25 import RankedBatch
from ._documents import CorpusDocument
from ._response import (
    LegContribution,
    LegKind,
    LegOutcome,
    LegStatus,
    RetrievalHit,
    RetrievalResponse,
)

__all__ = ["Hybrid", "Search"]


@dataclass(frozen=True)
class Hybrid:
    """A hybrid search of a query set as arrays: each leg's CSR rows (offsets, document
    positions, native scores), whether each query's semantic leg ran, and the fused rankings
    (offsets, positions, scores, each hit's rank in the keyword and semantic leg)."""

    keyword: RankedBatch
    semantic: RankedBatch
    dense: list[bool]
    fused: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Search:
    """One query's ranking (document positions and scores) and the outcome of its legs."""

    ranked: Sequence[tuple[int, float]]
    mode: str
    metric: str
    backend: str
    legs: tuple[LegOutcome, ...]
    #: Per hit, the legs' parts in a fused ranking (hybrid only).
    contributions: Sequence[tuple[LegContribution, ...]] | None = None

    def response(
        self, query: str, documents: Sequence[CorpusDocument], generation: str | None
    ) -> RetrievalResponse:
        legs = self.legs
        if len(legs) == 1:
            legs = (*legs, LegOutcome(LegKind.DENSE, LegStatus.SKIPPED))
        fused = self.contributions is not None
        hits = tuple(
            RetrievalHit(
                doc=documents[position],
                score=score,
                match_mode=self.mode,
                backend=self.backend,
                index_generation=generation,
                native_score=None if fused else score,
                native_metric=self.metric,
                contributions=() if self.contributions is None else self.contributions[rank],
                rank=rank,
            )
            for rank, (position, score) in enumerate(self.ranked)
        )
        return RetrievalResponse(hits, legs, query)

    @property
    def complete(self) -> bool:
        """True when every requested leg ran (no failed or degraded leg)."""
        return all(leg.status not in (LegStatus.FAILED, LegStatus.DEGRADED) for leg in self.legs)

    def error(self) -> str | None:
        records = [leg.error for leg in self.legs if leg.error is not None]
        return "; ".join(f"{r.code}: {r.message}" for r in records) or None
