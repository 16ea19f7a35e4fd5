"""The results of comparisons, and their tables and reports.

* :class:`MetricComparison`: one metric of a candidate against a baseline;
* :class:`Comparison`: a candidate against a baseline, metric by metric, with the per-query
  differences;
* :class:`MultipleComparison`: a campaign (every system against a baseline, or every pair),
  with the paper table as text, Markdown, LaTeX (booktabs), CSV and JSON
  (:mod:`~ragmeter.stats.tables` renders them) and reports in every format of
  :mod:`ragmeter.reports`.

:mod:`~ragmeter.stats.comparison` computes them. One module per result type
(:mod:`.comparison`, :mod:`.multiple_comparison`); what both share when saved and read back is in
``_saved``.
"""

from __future__ import annotations

from ..registry import TESTS
from ._saved import COMPARISON_KIND, FORMAT_VERSION, MULTIPLE_COMPARISON_KIND, READABLE_VERSIONS
from .comparison import Comparison, MetricComparison
from .multiple_comparison import MultipleComparison

__all__ = [
    "COMPARISON_KIND",
    "FORMAT_VERSION",
    "MULTIPLE_COMPARISON_KIND",
    "READABLE_VERSIONS",
    "TESTS",
    "Comparison",
    "MetricComparison",
    "MultipleComparison",
]
