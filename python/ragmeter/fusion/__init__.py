"""Fusion of several runs into one: ranx 0.3's 25 methods and 7 normalisations in the Rust core
(see :mod:`ragmeter.fusion.declarations`)."""

import importlib
from typing import Any

from ._fuse import FusedRun, PreparedRuns, fuse, prepare_runs, train_fusion
from ._optimize import FusionSearch, fusion_grid, optimize_fusion
from .declarations import METHODS, NORMALIZATIONS, FusionMethod, Normalization

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
    if name == "FusionEstimator":
        return importlib.import_module(f"{__name__}._estimator").FusionEstimator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
