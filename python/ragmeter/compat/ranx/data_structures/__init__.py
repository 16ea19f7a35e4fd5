"""ranx's ``ranx.data_structures``: :class:`Qrels` and :class:`Run` (the same classes as
``ragmeter.compat.ranx.Qrels`` and ``Run``), ``Report`` (what ``compare`` returns, over
ragmeter's comparison of every pair) and ``FrozensetDict``, with ``qrels``, ``run``, ``report``
and ``frozenset_dict`` modules that hold them and ranx's ``get_file_kind``.

ranx's ``OptimizationReport`` and the results-dict helpers are not part of the drop-in:
asking for one is an ``AttributeError`` that names it and says what ragmeter has instead.
"""

from __future__ import annotations

from typing import Any

from .._data import Qrels, Run
from .frozenset_dict import FrozensetDict
from .report import Report

__all__ = ["FrozensetDict", "Qrels", "Report", "Run"]

# What ranx's data_structures has that the drop-in does not, and what to use instead.
_NOT_PROVIDED = {
    "OptimizationReport": "ranx's optimize_fusion report: ragmeter.compat.ranx.optimize_fusion "
    "returns the best parameters and, with return_optimization_report=True, a table",
    "create_empty_results_dict": "a ranx internal",
    "create_empty_results_dict_list": "a ranx internal",
    "convert_results_dict_list_to_run": "a ranx internal",
}


def __getattr__(name: str) -> Any:
    if name in _NOT_PROVIDED:
        raise AttributeError(
            f"ragmeter.compat.ranx.data_structures has no {name} ({_NOT_PROVIDED[name]}); the "
            "drop-in provides Qrels, Run, Report and FrozensetDict"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
