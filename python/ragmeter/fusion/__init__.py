"""Fusion of several runs into one: ranx 0.3's 25 methods and 7 normalisations in the Rust core
(see :mod:`ragmeter.fusion.declarations`)."""

import importlib
from typing import TYPE_CHECKING, Any

from .declarations import METHODS, NORMALIZATIONS, FusionMethod, Normalization

if TYPE_CHECKING:
    from ._fuse import FusedRun, PreparedRuns, fuse, prepare_runs, train_fusion
    from ._optimize import FusionSearch, fusion_grid, optimize_fusion

# The functions and classes are imported on first use (PEP 562): `ragmeter fuse` on TREC files
# reads only the declarations, and importing `_fuse` and `_optimize` (numpy, the evaluation
# they tune against) was most of its start-up.
_LAZY = {
    "FusedRun": "_fuse",
    "PreparedRuns": "_fuse",
    "fuse": "_fuse",
    "prepare_runs": "_fuse",
    "train_fusion": "_fuse",
    "FusionSearch": "_optimize",
    "fusion_grid": "_optimize",
    "optimize_fusion": "_optimize",
    "FusionEstimator": "_estimator",
}

# FusionEstimator is reached through __getattr__ (it imports scikit-learn, an optional
# dependency) and so is not in __all__: `from ragmeter.fusion import *` must work without it.

__all__ = [
    "METHODS",
    "NORMALIZATIONS",
    "FusedRun",
    "FusionMethod",
    "FusionSearch",
    "Normalization",
    "PreparedRuns",
    "fuse",
    "fusion_grid",
    "optimize_fusion",
    "prepare_runs",
    "train_fusion",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    if name != "FusionEstimator":
        # Cached: the next access is an ordinary attribute.
        globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
