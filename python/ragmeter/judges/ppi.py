"""Deprecated: prediction-powered inference moved to :mod:`ragmeter.stats.ppi` (and the normal
quantile to :mod:`ragmeter.stats.distributions`), so that each statistic exists once
(issue 44). ``ragmeter.judges`` still re-exports ``MeanEstimate`` and ``ppi_mean``; importing
from this module works, with a :class:`DeprecationWarning`.
"""

from __future__ import annotations

from .._moved import moved_names

__all__: list[str] = []

__getattr__ = moved_names(
    __name__,
    {
        "MeanEstimate": "ragmeter.stats.ppi",
        "classical_mean": "ragmeter.stats.ppi",
        "ppi_mean": "ragmeter.stats.ppi",
        "normal_quantile": "ragmeter.stats.distributions",
    },
)
