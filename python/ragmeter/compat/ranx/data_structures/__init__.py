"""ranx's ``ranx.data_structures``: :class:`Qrels` and :class:`Run` (the same classes as
``ragmeter.compat.ranx.Qrels`` and ``Run``), with ``qrels`` and ``run`` modules that hold them
and ranx's ``get_file_kind``.

ranx's ``Report``, ``OptimizationReport``, ``FrozensetDict`` and the results-dict helpers are
not part of the drop-in: asking for one is an ``AttributeError`` that names it and says what
ragmeter has instead.
"""

from __future__ import annotations

from typing import Any

from .._data import Qrels, Run

__all__ = ["Qrels", "Run"]

# What ranx's data_structures has that the drop-in does not, and what to use instead.
_NOT_PROVIDED = {
    "Report": "ranx's compare() tables: use ragmeter.compare_many(...) (its .to_latex(), "
    ".to_markdown())",
    "OptimizationReport": "ranx's optimize_fusion report: ragmeter.compat.ranx.optimize_fusion "
    "returns the best parameters and, with return_optimization_report=True, a table",
    "FrozensetDict": "a ranx internal",
    "create_empty_results_dict": "a ranx internal",
    "create_empty_results_dict_list": "a ranx internal",
    "convert_results_dict_list_to_run": "a ranx internal",
}


def __getattr__(name: str) -> Any:
    if name in _NOT_PROVIDED:
        raise AttributeError(
            f"ragmeter.compat.ranx.data_structures has no {name} ({_NOT_PROVIDED[name]}); the "
            "drop-in provides Qrels and Run"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
