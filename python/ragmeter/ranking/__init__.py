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

import importlib
from typing import TYPE_CHECKING, Any

# The names' and declarations' modules need no numpy; they are imported at once (the
# `ragmeter evaluate` command on TREC files reads them and nothing else of this package).
from .declarations import FAMILIES, NICKNAMES, MeasureFamily
from .names import METRIC_NAMES, Measure, MetricSpec, parse_measures, parse_metric

if TYPE_CHECKING:
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

# The names of the modules that import numpy, imported on first use (PEP 562), as in the
# package `ragmeter`: name -> its module, relative to this package.
_LAZY_NAMES: dict[str, str] = {
    "Average": ".evaluation",
    "DEFAULT_METRICS": ".functions",
    "hit_rate_at_k": ".functions",
    "mean_average_precision": ".functions",
    "mean_reciprocal_rank": ".functions",
    "ndcg_at_k": ".functions",
    "precision_at_k": ".functions",
    "r_precision": ".functions",
    "ranking_metrics": ".functions",
    "recall_at_k": ".functions",
    "MetricResults": ".metric_results",
    "RunEvaluations": ".metric_results",
    "CountScore": ".results",
    "MeanScore": ".results",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY_NAMES.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name, __name__), name)
    # Cached as an ordinary attribute: later look-ups do not reach __getattr__.
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
