"""ragmeter: measure retrieval and RAG systems.

Ranking metrics that agree with trec_eval, answer metrics, paired significance tests,
scikit-learn scorers and LLM judges, with the arithmetic in a Rust core.
"""

from __future__ import annotations

from ._core import __version__
from .exceptions import (
    InvalidInputError,
    MissingDependencyError,
    RagmeterError,
    TrecFormatError,
    UndefinedMetricWarning,
)

__all__ = [
    "InvalidInputError",
    "MissingDependencyError",
    "RagmeterError",
    "TrecFormatError",
    "UndefinedMetricWarning",
    "__version__",
]
