"""What an evaluation returns: values that say what they summarise.

* :class:`MeanScore` and :class:`CountScore` (defined in :mod:`ragmeter.summaries`): a value
  over queries that says how many queries it is over;
* (:class:`~ragmeter.MetricResults`, what :func:`~ragmeter.ranking_metrics` and
  :func:`~ragmeter.evaluate_trec` return, and its saved form are in
  :mod:`~ragmeter.ranking.metric_results`);
* :class:`PerQueryResults` (defined in :mod:`ragmeter.per_query`): one system's per-query
  values, the type every comparison reads.

The names are defined where they are documented and re-exported here, where earlier versions
defined them.
"""

from __future__ import annotations

from ..per_query import PerQueryResults
from ..summaries import CountScore, MeanScore
from ..summaries import make_count_score as _make_count  # noqa: F401  (pickles name it)
from ..summaries import make_mean_score as _make_mean  # noqa: F401  (pickles name it)

__all__ = ["CountScore", "MeanScore", "PerQueryResults"]
