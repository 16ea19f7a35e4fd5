"""ragmeter: measure retrieval and RAG systems.

Ranking metrics that agree with trec_eval, answer metrics, paired significance tests,
scikit-learn scorers and LLM judges, with the arithmetic in a Rust core.
"""

from __future__ import annotations

from typing import Any

from ._core import __version__
from .answers import (
    anls_score,
    edit_similarity_score,
    exact_match_score,
    normalize_basic,
    normalize_squad,
    token_f1_score,
)
from .exceptions import (
    InputFileError,
    InputFileNotFoundError,
    InputFilePermissionError,
    InputTypeError,
    InvalidInputError,
    JudgeConfigurationError,
    JudgeError,
    JudgeOutputError,
    JudgeTransportError,
    MissingDependencyError,
    RagmeterError,
    RetrievalError,
    RetrievalWarning,
    TrecFormatError,
    UndefinedMetricWarning,
)
from .fusion import FusedRun, fuse
from .harness import evaluate_retrieval
from .io.trec import evaluate_trec, read_trec_qrels, read_trec_run, write_trec_run
from .options import EvaluationOptions
from .per_query import PerQueryResults, per_query_results
from .ranking import (
    CountScore,
    MeanScore,
    MetricResults,
    hit_rate_at_k,
    mean_average_precision,
    mean_reciprocal_rank,
    ndcg_at_k,
    parse_measures,
    parse_metric,
    precision_at_k,
    r_precision,
    ranking_metrics,
    recall_at_k,
)
from .retrieval import (
    CorpusDocument,
    CustomRetrievalIndex,
    RetrievalConfig,
    RetrievalHit,
    RetrievalIndex,
    RetrievalResponse,
    RetrievalStatus,
    make_levenshtein_ranker,
    make_pairwise_ranker,
)
from .retrieval_evaluation import QueryRecord, RetrievalEvaluation
from .scorers import (
    ScorerBackendInfo,
    get_corpus_scorer,
    make_corpus_scorer,
    scorer_backend_info,
)
from .stats import (
    Comparison,
    MetricComparison,
    MultipleComparison,
    PairedTestResult,
    SignFlipResult,
    TukeyResult,
    adjust_p_values,
    bootstrap_confidence_interval,
    compare,
    compare_evaluations,
    compare_many,
    paired_bootstrap_test,
    paired_t_test,
    sign_flip_test,
    tukey_hsd,
    wilcoxon_test,
)

__all__ = [
    "Comparison",
    "CorpusDocument",
    "CountScore",
    "CustomRetrievalIndex",
    "EvaluationOptions",
    "FusedRun",
    "InputFileError",
    "InputFileNotFoundError",
    "InputFilePermissionError",
    "InputTypeError",
    "InvalidInputError",
    "JudgeConfigurationError",
    "JudgeError",
    "JudgeOutputError",
    "JudgeTransportError",
    "MeanScore",
    "MetricComparison",
    "MetricResults",
    "MissingDependencyError",
    "MultipleComparison",
    "PairedTestResult",
    "PerQueryResults",
    "QueryRecord",
    "RagmeterError",
    "RetrievalConfig",
    "RetrievalError",
    "RetrievalEvaluation",
    "RetrievalHit",
    "RetrievalIndex",
    "RetrievalResponse",
    "RetrievalStatus",
    "RetrievalWarning",
    "ScorerBackendInfo",
    "SignFlipResult",
    "TrecFormatError",
    "TukeyResult",
    "UndefinedMetricWarning",
    "__version__",
    "adjust_p_values",
    "anls_score",
    "bootstrap_confidence_interval",
    "compare",
    "compare_evaluations",
    "compare_many",
    "edit_similarity_score",
    "evaluate_retrieval",
    "evaluate_trec",
    "exact_match_score",
    "fuse",
    "get_corpus_scorer",
    "hit_rate_at_k",
    "judges",
    "levenshtein",
    "make_corpus_scorer",
    "make_levenshtein_ranker",
    "make_pairwise_ranker",
    "mean_average_precision",
    "mean_reciprocal_rank",
    "ndcg_at_k",
    "normalize_basic",
    "normalize_squad",
    "paired_bootstrap_test",
    "paired_t_test",
    "parse_measures",
    "parse_metric",
    "per_query_results",
    "precision_at_k",
    "r_precision",
    "ranking_metrics",
    "read_trec_qrels",
    "read_trec_run",
    "recall_at_k",
    "scorer_backend_info",
    "sign_flip_test",
    "token_f1_score",
    "tukey_hsd",
    "wilcoxon_test",
    "write_trec_run",
]

# Subpackages imported on first use, so that `import ragmeter` stays light.
_LAZY_SUBPACKAGES = ("judges", "levenshtein")
# Names whose module imports an optional dependency (scikit-learn), reached on first use and
# kept out of __all__ so that `from ragmeter import *` works without it.
_LAZY_NAMES = {"RetrievalEstimator": "retrieval"}


def __getattr__(name: str) -> Any:
    if name in _LAZY_SUBPACKAGES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY_NAMES:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
