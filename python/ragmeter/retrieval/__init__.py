"""Retrievers to evaluate: an in-memory index (BM25, substring, cosine, hybrid), custom
scorers, the response objects that say whether a search ran completely, and
:class:`RetrievalEstimator`, the index as a scikit-learn estimator.

The API follows scikit-plots' ``scikitplot.corpus`` retrieval layer, so code written for it
runs against ragmeter's harness.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._cache import (
    DEFAULT_INDEX_CACHE_SIZE,
    IndexCacheInfo,
    clear_index_cache,
    index_cache_info,
    set_index_cache_size,
)
from ._config import BM25_VARIANTS, MATCH_MODES, RetrievalConfig
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

# RetrievalEstimator is reached through __getattr__ (it imports scikit-learn, an optional
# dependency) and so is not in __all__: `from ragmeter.retrieval import *` must work without
# scikit-learn.
__all__ = [
    "BM25_VARIANTS",
    "DEFAULT_INDEX_CACHE_SIZE",
    "MATCH_MODES",
    "CorpusDocument",
    "CustomRetrievalIndex",
    "ErrorCategory",
    "ErrorRecord",
    "IndexCacheInfo",
    "LegContribution",
    "LegKind",
    "LegOutcome",
    "LegStatus",
    "RetrievalConfig",
    "RetrievalHit",
    "RetrievalIndex",
    "RetrievalResponse",
    "RetrievalStatus",
    "clear_index_cache",
    "index_cache_info",
    "make_levenshtein_ranker",
    "make_pairwise_ranker",
    "set_index_cache_size",
    "tokenize",
]


def __getattr__(name: str) -> Any:
    if name == "RetrievalEstimator":
        return importlib.import_module(f"{__name__}._estimator").RetrievalEstimator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
