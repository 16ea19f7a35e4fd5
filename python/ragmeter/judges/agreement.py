"""Deprecated: agreement between raters moved to :mod:`ragmeter.stats.raters`, the rank
correlations (Kendall's tau-b, Spearman's rho) to :mod:`ragmeter.stats.orderings`, so that
each statistic exists once (issue 44). ``ragmeter.judges`` still re-exports them; importing
them from this module works, with a :class:`DeprecationWarning`.
"""

from __future__ import annotations

from .._moved import moved_names

__all__: list[str] = []

_RATERS = "ragmeter.stats.raters"
__getattr__ = moved_names(
    __name__,
    {
        "BOOTSTRAP_METHOD": _RATERS,
        "LEVELS": _RATERS,
        "Level": _RATERS,
        "agreement_report": _RATERS,
        "cohen_kappa": _RATERS,
        "confusion_table": _RATERS,
        "fleiss_kappa": _RATERS,
        "krippendorff_alpha": _RATERS,
        "percent_agreement": _RATERS,
        "kendall_tau": "ragmeter.stats.orderings",
        "spearman_rho": "ragmeter.stats.orderings",
    },
)
