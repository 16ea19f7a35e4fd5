"""p-values below the double-precision floor, and how every output format shows a p-value: see
:mod:`ragmeter._pvalues`, where the rule lives so that modules below the statistics (the
figures) use it too.
"""

from __future__ import annotations

from .._pvalues import (
    P_VALUE_BOUND_TEXT,
    P_VALUE_FLOOR,
    bound_p_value,
    bound_p_values,
    format_p_value,
    is_bound,
)

__all__ = [
    "P_VALUE_BOUND_TEXT",
    "P_VALUE_FLOOR",
    "bound_p_value",
    "bound_p_values",
    "format_p_value",
    "is_bound",
]
