"""LLM judges for generated answers: one judge or a panel, any OpenAI-compatible endpoint.

Metrics (each returns per-sample :class:`Score` objects with value, status, reasons and
evidence): ``context_relevancy``, ``answer_relevancy``, ``answer_relevance``, ``groundedness``,
``faithfulness``, ``context_precision``, ``context_recall``, ``pairwise_preference``,
``answer_correctness``, ``umbrela_relevance`` (grades for qrels holes:
:mod:`~ragmeter.judges.relevance`), and custom metrics (:class:`Metric`, :func:`metric`,
:class:`RubricMetric`). Run them with :func:`evaluate` (samples from files and tables:
:func:`load_samples`); the embedchain-compatible API (:class:`ContextRelevance`,
:class:`AnswerRelevance`, :class:`Groundedness`, their configs, :class:`BaseMetric`,
:class:`EvalData`, :func:`evaluate_rag`) sits on the same engine.

Importing this package loads no HTTP client and reaches no network: a call is made only when a
judge was configured (``judge=``, or ``RAGMETER_JUDGE_MODEL`` with ``OPENAI_BASE_URL`` /
``OPENAI_API_KEY``). httpx is the optional extra ``ragmeter[judges]``.

Layout: the metric author's API is :mod:`~ragmeter.judges.metrics.base` (``Metric``),
:mod:`~ragmeter.judges.context` (``JudgeContext``), :mod:`~ragmeter.judges.score` and
:mod:`~ragmeter.judges.sample`; the built-in metrics are in ``metrics/``, the run engine (run
settings, runtime, cache, dry runs) in ``engine/``, judges and embedders in ``clients/``, test
doubles and the loopback server in ``testing/``, other libraries' APIs in ``compat/``. They are
layered: ``metrics`` -> ``engine`` -> ``clients``, with ``testing`` beside the engine (it uses
only the clients), all on the top-level modules (samples, scores, prompts, parsing, results);
the engine runs the metric objects it is given and never imports ``metrics/``
(:mod:`~ragmeter.judges.registry` turns metric names into objects, above both).
"""

from __future__ import annotations

from ..exceptions import (
    JudgeBatchPending,
    JudgeCacheError,
    JudgeConfigurationError,
    JudgeError,
    JudgeOutputError,
    JudgeTransportError,
)
from ..stats.orderings import kendall_tau, spearman_rho
from ..stats.ppi import MeanEstimate, ppi_mean
from ..stats.raters import (
    agreement_report,
    cohen_kappa,
    confusion_table,
    fleiss_kappa,
    krippendorff_alpha,
    percent_agreement,
)
from .accounting import CallStats, Price
from .budget import BudgetedEstimate, evaluate_within_budget
from .clients.chat import OpenAIClientJudge, OpenAICompatibleJudge, judge_from_env
from .clients.embeddings import OpenAIClientEmbedder, OpenAICompatibleEmbedder
from .clients.environment import ENV_API_KEY, ENV_BASE_URL, ENV_EMBEDDING_MODEL, ENV_MODEL
from .clients.limits import Limits, RetryPolicy
from .clients.offline import HashEmbedder, RuleJudge
from .clients.protocol import (
    Embedder,
    Judge,
    JudgeRequest,
    JudgeResponse,
    Usage,
    as_embedder,
    as_judge,
)
from .compat.embedchain import (
    AnswerRelevance,
    AnswerRelevanceConfig,
    BaseConfig,
    BaseMetric,
    ContextRelevance,
    ContextRelevanceConfig,
    EvalData,
    EvalMetric,
    Groundedness,
    GroundednessConfig,
    evaluate_rag,
)
from .context import JudgeContext
from .engine.cache import JudgeCache
from .engine.settings import NO_MAX_TOKENS, RunSettings
from .evaluation import (
    BatchMode,
    DryRunEstimate,
    aevaluate,
    evaluate,
    judge_json,
    pairwise_preference,
)
from .integrity import JudgeReport, judge_report, model_family
from .loading import load_samples
from .metrics import (
    AnswerCorrectnessMetric,
    AnswerRelevanceMetric,
    AnswerRelevancyMetric,
    ContextPrecisionMetric,
    ContextRecallMetric,
    ContextRelevancyMetric,
    FaithfulnessMetric,
    FunctionMetric,
    GroundednessMetric,
    PairwisePreferenceMetric,
    RubricMetric,
    UmbrelaRelevanceMetric,
    cosine_similarity,
    metric,
)
from .metrics.base import Metric
from .offline_rules import NoOfflineRuleError, OfflineRequest
from .panel import Panel
from .prompts import PromptTemplate
from .results import JudgeResults, MetricSummary, SampleResult
from .sample import Sample
from .score import Score
from .testing import FaultyJudge, ScriptedJudge

__all__ = [
    "ENV_API_KEY",
    "ENV_BASE_URL",
    "ENV_EMBEDDING_MODEL",
    "ENV_MODEL",
    "NO_MAX_TOKENS",
    "AnswerCorrectnessMetric",
    "AnswerRelevance",
    "AnswerRelevanceConfig",
    "AnswerRelevanceMetric",
    "AnswerRelevancyMetric",
    "BaseConfig",
    "BaseMetric",
    "BatchMode",
    "BudgetedEstimate",
    "CallStats",
    "ContextPrecisionMetric",
    "ContextRecallMetric",
    "ContextRelevance",
    "ContextRelevanceConfig",
    "ContextRelevancyMetric",
    "DryRunEstimate",
    "Embedder",
    "EvalData",
    "EvalMetric",
    "FaithfulnessMetric",
    "FaultyJudge",
    "FunctionMetric",
    "Groundedness",
    "GroundednessConfig",
    "GroundednessMetric",
    "HashEmbedder",
    "Judge",
    "JudgeBatchPending",
    "JudgeCache",
    "JudgeCacheError",
    "JudgeConfigurationError",
    "JudgeContext",
    "JudgeError",
    "JudgeOutputError",
    "JudgeReport",
    "JudgeRequest",
    "JudgeResponse",
    "JudgeResults",
    "JudgeTransportError",
    "Limits",
    "MeanEstimate",
    "Metric",
    "MetricSummary",
    "NoOfflineRuleError",
    "OfflineRequest",
    "OpenAIClientEmbedder",
    "OpenAIClientJudge",
    "OpenAICompatibleEmbedder",
    "OpenAICompatibleJudge",
    "PairwisePreferenceMetric",
    "Panel",
    "Price",
    "PromptTemplate",
    "RetryPolicy",
    "RubricMetric",
    "RuleJudge",
    "RunSettings",
    "Sample",
    "SampleResult",
    "Score",
    "ScriptedJudge",
    "UmbrelaRelevanceMetric",
    "Usage",
    "aevaluate",
    "agreement_report",
    "as_embedder",
    "as_judge",
    "cohen_kappa",
    "confusion_table",
    "cosine_similarity",
    "evaluate",
    "evaluate_rag",
    "evaluate_within_budget",
    "fleiss_kappa",
    "judge_from_env",
    "judge_json",
    "judge_report",
    "kendall_tau",
    "krippendorff_alpha",
    "load_samples",
    "metric",
    "model_family",
    "pairwise_preference",
    "percent_agreement",
    "ppi_mean",
    "spearman_rho",
]
