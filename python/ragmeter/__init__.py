"""ragmeter: measure retrieval and RAG systems.

Ranking metrics that agree with trec_eval, answer metrics, paired significance tests,
scikit-learn scorers and LLM judges, with the arithmetic in a Rust core.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import judges, levenshtein
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
    from .fusion import FusionEstimator as FusionEstimator
    from .harness import evaluate_retrieval
    from .html_report import report
    from .io.trec import evaluate_trec, read_trec_qrels, read_trec_run, write_trec_run
    from .options import EvaluationOptions
    from .per_query import Manifest, PerQueryResults, check_comparable, per_query_results
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
    from .retrieval import RetrievalEstimator as RetrievalEstimator
    from .retrieval_evaluation import QueryRecord, RetrievalEvaluation
    from .scorers import (
        ScorerBackendInfo,
        get_corpus_scorer,
        make_corpus_scorer,
        scorer_backend_info,
    )
    from .stats import (
        Comparison,
        ComparisonOptions,
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
        detectable_difference,
        paired_bootstrap_test,
        paired_t_test,
        paired_tukey_hsd,
        sign_flip_test,
        topic_set_size,
        tukey_hsd,
        two_way_anova,
        wilcoxon_test,
    )

__all__ = [
    "Comparison",
    "ComparisonOptions",
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
    "Manifest",
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
    "check_comparable",
    "compare",
    "compare_evaluations",
    "compare_many",
    "detectable_difference",
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
    "paired_tukey_hsd",
    "parse_measures",
    "parse_metric",
    "per_query_results",
    "precision_at_k",
    "r_precision",
    "ranking_metrics",
    "read_trec_qrels",
    "read_trec_run",
    "recall_at_k",
    "report",
    "scorer_backend_info",
    "sign_flip_test",
    "token_f1_score",
    "topic_set_size",
    "tukey_hsd",
    "two_way_anova",
    "wilcoxon_test",
    "write_trec_run",
]

# Every public name is imported on first use (PEP 562), so that `import ragmeter` costs no more
# than the modules a program uses: the command line and a single ranking_metrics call do not
# pay for statistics, judges, retrieval or answer metrics (nor numpy, if they do not need it).
# Name -> the module (relative to this package) that defines it; a module named by itself
# (judges, levenshtein) is the subpackage.
_LAZY_NAMES: dict[str, str] = {
    "__version__": "._core",
    "anls_score": ".answers",
    "edit_similarity_score": ".answers",
    "exact_match_score": ".answers",
    "normalize_basic": ".answers",
    "normalize_squad": ".answers",
    "token_f1_score": ".answers",
    "InputFileError": ".exceptions",
    "InputFileNotFoundError": ".exceptions",
    "InputFilePermissionError": ".exceptions",
    "InputTypeError": ".exceptions",
    "InvalidInputError": ".exceptions",
    "JudgeConfigurationError": ".exceptions",
    "JudgeError": ".exceptions",
    "JudgeOutputError": ".exceptions",
    "JudgeTransportError": ".exceptions",
    "MissingDependencyError": ".exceptions",
    "RagmeterError": ".exceptions",
    "RetrievalError": ".exceptions",
    "RetrievalWarning": ".exceptions",
    "TrecFormatError": ".exceptions",
    "UndefinedMetricWarning": ".exceptions",
    "evaluate_retrieval": ".harness",
    "FusedRun": ".fusion",
    "fuse": ".fusion",
    "report": ".html_report",
    "evaluate_trec": ".io.trec",
    "read_trec_qrels": ".io.trec",
    "read_trec_run": ".io.trec",
    "write_trec_run": ".io.trec",
    "EvaluationOptions": ".options",
    "Manifest": ".per_query",
    "PerQueryResults": ".per_query",
    "check_comparable": ".per_query",
    "per_query_results": ".per_query",
    "CountScore": ".ranking",
    "MeanScore": ".ranking",
    "MetricResults": ".ranking",
    "hit_rate_at_k": ".ranking",
    "mean_average_precision": ".ranking",
    "mean_reciprocal_rank": ".ranking",
    "ndcg_at_k": ".ranking",
    "parse_measures": ".ranking",
    "parse_metric": ".ranking",
    "precision_at_k": ".ranking",
    "r_precision": ".ranking",
    "ranking_metrics": ".ranking",
    "recall_at_k": ".ranking",
    "CorpusDocument": ".retrieval",
    "CustomRetrievalIndex": ".retrieval",
    "RetrievalConfig": ".retrieval",
    "RetrievalHit": ".retrieval",
    "RetrievalIndex": ".retrieval",
    "RetrievalResponse": ".retrieval",
    "RetrievalStatus": ".retrieval",
    "make_levenshtein_ranker": ".retrieval",
    "make_pairwise_ranker": ".retrieval",
    "QueryRecord": ".retrieval_evaluation",
    "RetrievalEvaluation": ".retrieval_evaluation",
    "ScorerBackendInfo": ".scorers",
    "get_corpus_scorer": ".scorers",
    "make_corpus_scorer": ".scorers",
    "scorer_backend_info": ".scorers",
    "Comparison": ".stats",
    "ComparisonOptions": ".stats",
    "MetricComparison": ".stats",
    "MultipleComparison": ".stats",
    "PairedTestResult": ".stats",
    "SignFlipResult": ".stats",
    "TukeyResult": ".stats",
    "adjust_p_values": ".stats",
    "bootstrap_confidence_interval": ".stats",
    "compare": ".stats",
    "compare_evaluations": ".stats",
    "compare_many": ".stats",
    "paired_bootstrap_test": ".stats",
    "paired_t_test": ".stats",
    "sign_flip_test": ".stats",
    "tukey_hsd": ".stats",
    "wilcoxon_test": ".stats",
    "detectable_difference": ".stats",
    "paired_tukey_hsd": ".stats",
    "topic_set_size": ".stats",
    "two_way_anova": ".stats",
    "judges": ".judges",
    "levenshtein": ".levenshtein",
    # Not in __all__: its module imports an optional dependency (scikit-learn), so that
    # `from ragmeter import *` works without it.
    "RetrievalEstimator": ".retrieval",
    "FusionEstimator": ".fusion",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY_NAMES.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(module_name, __name__)
    value = module if module_name == "." + name else getattr(module, name)
    # Cached as an ordinary attribute: later look-ups do not reach __getattr__.
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
