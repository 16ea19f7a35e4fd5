"""Retrievers to evaluate: an in-memory index (BM25, substring, cosine, hybrid), custom
scorers, and the response objects that say whether a search ran completely.

The API follows scikit-plots' ``scikitplot.corpus`` retrieval layer, so code written for it
runs against ragmeter's harness.
"""

from __future__ import annotations

from ._config import MATCH_MODES, RetrievalConfig
from ._custom import CustomRetrievalIndex, make_levenshtein_ranker, make_pairwise_ranker
from ._documents import CorpusDocument
from ._index import RetrievalIndex, tokenize
from ._response import (
    ErrorCategory,
    ErrorRecord,
    LegContribution,
    LegKind,
    LegOutcome,
    LegStatus,
    RetrievalHit,
    RetrievalResponse,
    RetrievalStatus,
)

__all__ = [
    "MATCH_MODES",
    "CorpusDocument",
    "CustomRetrievalIndex",
    "ErrorCategory",
    "ErrorRecord",
    "LegContribution",
    "LegKind",
    "LegOutcome",
    "LegStatus",
    "RetrievalConfig",
    "RetrievalHit",
    "RetrievalIndex",
    "RetrievalResponse",
    "RetrievalStatus",
    "make_levenshtein_ranker",
    "make_pairwise_ranker",
    "tokenize",
]
