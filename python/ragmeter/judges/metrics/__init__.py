"""The built-in judge metrics, and the registry that maps their names to their classes."""

from __future__ import annotations

from .answer import AnswerRelevanceMetric, AnswerRelevancyMetric, cosine_similarity
from .base import Metric
from .claims import FaithfulnessMetric, GroundednessMetric
from .context import (
    ContextPrecisionMetric,
    ContextRecallMetric,
    ContextRelevancyMetric,
    average_precision,
)
from .correctness import AnswerCorrectnessMetric, factual_f_score
from .custom import FunctionMetric, RubricMetric, metric
from .preference import PairwisePreferenceMetric
from .umbrela import UmbrelaRelevanceMetric

__all__ = [
    "BUILTIN_METRICS",
    "METRIC_NAMES",
    "AnswerCorrectnessMetric",
    "AnswerRelevanceMetric",
    "AnswerRelevancyMetric",
    "ContextPrecisionMetric",
    "ContextRecallMetric",
    "ContextRelevancyMetric",
    "FaithfulnessMetric",
    "FunctionMetric",
    "GroundednessMetric",
    "PairwisePreferenceMetric",
    "RubricMetric",
    "UmbrelaRelevanceMetric",
    "average_precision",
    "cosine_similarity",
    "factual_f_score",
    "metric",
]

BUILTIN_METRICS: dict[str, type[Metric]] = {
    "context_relevancy": ContextRelevancyMetric,
    "answer_relevancy": AnswerRelevancyMetric,
    "answer_relevance": AnswerRelevanceMetric,
    "groundedness": GroundednessMetric,
    "faithfulness": FaithfulnessMetric,
    "context_precision": ContextPrecisionMetric,
    "context_recall": ContextRecallMetric,
    "pairwise_preference": PairwisePreferenceMetric,
    "answer_correctness": AnswerCorrectnessMetric,
    "umbrela_relevance": UmbrelaRelevanceMetric,
}
METRIC_NAMES: tuple[str, ...] = tuple(BUILTIN_METRICS)
