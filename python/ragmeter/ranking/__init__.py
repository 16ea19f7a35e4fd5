"""Ranking measures: every trec_eval measure and more, each declared once.

* :mod:`~ragmeter.ranking.declarations`: the families of measures (:data:`FAMILIES`), with
  their names, parameters, undefined rules, formulas, citations and reference implementations;
* :mod:`~ragmeter.ranking.names`: measure names in ragmeter's, trec_eval's, ir_measures' and
  ranx's syntax, parsed in one place;
* :mod:`~ragmeter.ranking.evaluation`: per-query values and summaries over queries;
* :mod:`~ragmeter.ranking.functions`: :func:`ranking_metrics` and the metric functions;
* :mod:`~ragmeter.ranking.metric_results`: what they return (:class:`MetricResults`) and its
  saved form (:class:`RunEvaluations`, what ``ragmeter evaluate --format json`` writes).
"""

from __future__ import annotations

from .declarations import FAMILIES, NICKNAMES, MeasureFamily
from .evaluation import Average
from .functions import (
    DEFAULT_METRICS,
    hit_rate_at_k,
    mean_average_precision,
    mean_reciprocal_rank,
    ndcg_at_k,
    precision_at_k,
    r_precision,
    ranking_metrics,
    recall_at_k,
)
from .metric_results import MetricResults, RunEvaluations
from .names import METRIC_NAMES, Measure, MetricSpec, parse_measures, parse_metric
from .results import CountScore, MeanScore

__all__ = [
    "DEFAULT_METRICS",
    "FAMILIES",
    "METRIC_NAMES",
    "NICKNAMES",
    "Average",
    "CountScore",
    "MeanScore",
    "Measure",
    "MeasureFamily",
    "MetricResults",
    "MetricSpec",
    "RunEvaluations",
    "hit_rate_at_k",
    "mean_average_precision",
    "mean_reciprocal_rank",
    "ndcg_at_k",
    "parse_measures",
    "parse_metric",
    "precision_at_k",
    "r_precision",
    "ranking_metrics",
    "recall_at_k",
]
